"""The document cache: held by blob id and limits, least recently used dropped past its budget."""

from __future__ import annotations

from typing import Any

from reconciler.templates import DocumentCache, Limits
from reconciler.templates.document_cache import parsed_file

LIMITS = Limits()


def test_a_document_is_found_by_its_blob_id_and_limits() -> None:
    cache = DocumentCache(budget_bytes=100)
    entry = parsed_file(b"a: 1\n", "a: 1\n", {"a": 1})
    cache.put("blob-a", LIMITS, entry)
    assert cache.get("blob-a", LIMITS) is entry
    assert cache.get("blob-a", Limits(max_yaml_depth=10)) is None  # parsed within other limits
    assert cache.get("blob-b", LIMITS) is None
    assert (cache.parses, cache.hits) == (1, 1)


def test_the_least_recently_used_are_dropped_past_the_budget() -> None:
    cache = DocumentCache(budget_bytes=100)
    cache.put("first", LIMITS, parsed_file(b"1" * 40, "", None))
    cache.put("second", LIMITS, parsed_file(b"2" * 40, "", None))
    assert cache.get("first", LIMITS) is not None  # now the most recently used
    cache.put("third", LIMITS, parsed_file(b"3" * 40, "", None))
    assert cache.get("second", LIMITS) is None
    assert cache.get("first", LIMITS) is not None
    assert cache.get("third", LIMITS) is not None
    assert (len(cache), cache.cached_bytes) == (2, 80)


def test_a_file_larger_than_the_budget_is_not_held() -> None:
    """It would only push every other document out."""
    cache = DocumentCache(budget_bytes=100)
    cache.put("small", LIMITS, parsed_file(b"s" * 10, "", None))
    cache.put("huge", LIMITS, parsed_file(b"h" * 101, "", None))
    assert cache.get("huge", LIMITS) is None
    assert cache.get("small", LIMITS) is not None


def test_a_model_is_kept_with_its_document_and_dropped_with_it() -> None:
    cache = DocumentCache(budget_bytes=100)
    cache.put("first", LIMITS, parsed_file(b"1" * 60, "", None))
    model: Any = object()  # the cache holds models without looking into them
    cache.keep_model("first", LIMITS, "t.yaml", model)
    cache.keep_model("unknown", LIMITS, "u.yaml", model)  # no document held: not kept
    assert cache.model("first", LIMITS, "t.yaml") is model
    assert cache.model("first", LIMITS, "other.yaml") is None
    assert cache.model("unknown", LIMITS, "u.yaml") is None
    cache.put("second", LIMITS, parsed_file(b"2" * 60, "", None))  # pushes "first" out
    assert cache.model("first", LIMITS, "t.yaml") is None
    assert cache.models_built == 2
