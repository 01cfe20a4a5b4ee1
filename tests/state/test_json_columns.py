"""The JSON text written into the records' JSON columns: compact, ASCII, what `json` itself writes."""

from __future__ import annotations

import json
from typing import Any

import pytest

from state.record_batches import serialize_json

VALUES: list[Any] = [
    {},
    {"name": "s0", "tags": ["a", "b"], "metadata": {}, "size": 10, "ratio": 0.5, "on": True, "off": None},
    {"nested": {"deeper": [{"x": 1}, [], {}]}, "unicode": "café ☃", "quote": 'say "hi"\n'},
    {"big": 10**30, "negative": -3, "nan": float("nan"), "infinity": float("inf")},
    [1, "two", None],
    "text",
    7,
]


@pytest.mark.parametrize("value", VALUES)
def test_the_text_is_what_json_writes_compact(value: Any) -> None:
    assert serialize_json(value) == json.dumps(value, separators=(",", ":"))


def test_a_value_json_cannot_write_is_a_type_error_naming_its_type() -> None:
    with pytest.raises(TypeError, match="set"):
        serialize_json({"members": {1, 2}})
