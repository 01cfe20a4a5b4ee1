"""Mistral's five-field cron patterns: what they name next, and what they refuse."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from providers.simulated.cron import CronPattern

NOW = datetime(2030, 1, 1, 10, 7, 30, tzinfo=UTC)  # a Tuesday


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("* * * * *", datetime(2030, 1, 1, 10, 8, tzinfo=UTC)),
        ("0,20,40 * * * *", datetime(2030, 1, 1, 10, 20, tzinfo=UTC)),
        ("*/15 * * * *", datetime(2030, 1, 1, 10, 15, tzinfo=UTC)),
        ("5 9-11/2 * * *", datetime(2030, 1, 1, 11, 5, tzinfo=UTC)),
        ("0 0 * * 0", datetime(2030, 1, 6, 0, 0, tzinfo=UTC)),  # Sunday as 0
        ("0 0 * * 7", datetime(2030, 1, 6, 0, 0, tzinfo=UTC)),  # and as 7
        ("0 0 15 * 1", datetime(2030, 1, 7, 0, 0, tzinfo=UTC)),  # both days named: either matches
        ("30 2 29 2 *", datetime(2032, 2, 29, 2, 30, tzinfo=UTC)),  # the next leap day
    ],
)
def test_a_pattern_names_its_next_time(pattern: str, expected: datetime) -> None:
    assert CronPattern.parse(pattern).next_after(NOW) == expected


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [
        ("* * * *", "expected 5 fields"),
        ("61 * * * *", "outside 0-59"),
        ("* 24 * * *", "outside 0-23"),
        ("*/0 * * * *", "bad step"),
        ("a * * * *", "bad minute field"),
        ("5-1 * * * *", "outside 0-59"),
        ("0 0 30 2 *", "no time in the next five years"),
    ],
)
def test_a_pattern_that_names_no_time_is_refused(pattern: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        CronPattern.parse(pattern).next_after(NOW)
