"""A failure's text, as stack rows and notes carry it, reads back into the same failure."""

from __future__ import annotations

import pytest

from reconciler.engine.report import Failure, parse_failure

CASES = [
    Failure("web", "HTTP 403: Policy does not allow this request."),
    Failure("web", "quota exceeded: 10 of 10; then more", 1_795_500_000.0),
    Failure("nodes", "nested stack app/nodes FAILED: 1: HTTP 403: no", 1_795_503_600.0),
]


@pytest.mark.parametrize("failure", CASES, ids=str)
def test_a_failure_reads_back_from_its_text(failure: Failure) -> None:
    assert parse_failure(str(failure)) == failure


def test_the_next_try_is_written_in_utc_to_the_second() -> None:
    assert str(Failure("web", "refused", 1_795_500_000.4)).endswith("; next try at 2026-11-24T06:00:00Z")


def test_a_reason_without_a_resource_is_the_stack_s() -> None:
    assert parse_failure("template is wrong") == Failure("stack", "template is wrong")
