"""A scaling group's new size, as Heat computes it: table cases of its adjustment types and rounding."""

from __future__ import annotations

import pytest

from reconciler.engine.scaling_capacity import new_capacity

CASES = [
    # current, adjustment, type, min_adjustment_step, (min, max), expected
    (2, 1, "change_in_capacity", None, (1, 5), 3),
    (2, -1, "change_in_capacity", None, (1, 5), 1),
    (1, -1, "change_in_capacity", None, (1, 5), 1),  # never below min_size
    (5, 3, "change_in_capacity", None, (1, 5), 5),  # never above max_size
    (2, 4, "exact_capacity", None, (1, 5), 4),
    (2, 9, "exact_capacity", None, (1, 5), 5),
    (2, 0, "exact_capacity", None, (1, 5), 1),
    (10, 33, "percent_change_in_capacity", None, (0, 100), 13),  # 3.3 rounds towards zero
    (10, -33, "percent_change_in_capacity", None, (0, 100), 7),  # -3.3 rounds towards zero
    (2, 10, "percent_change_in_capacity", None, (0, 100), 3),  # 0.2 rounds away from zero: 1
    (2, -10, "percent_change_in_capacity", None, (0, 100), 1),  # -0.2 rounds away from zero: -1
    (1, 33, "percent_change_in_capacity", 2, (0, 100), 3),  # at least min_adjustment_step
    (10, -10, "percent_change_in_capacity", 3, (0, 100), 7),
    (10, 50, "percent_change_in_capacity", 3, (0, 100), 15),  # a larger change is kept
    (0, 50, "percent_change_in_capacity", None, (0, 100), 0),  # nothing of nothing
    (4, 1, "ChangeInCapacity", None, (1, 5), 5),  # the CloudFormation spellings
    (4, 2, "ExactCapacity", None, (1, 5), 2),
    (4, 50, "PercentChangeInCapacity", None, (1, 10), 6),
]


@pytest.mark.parametrize("case", CASES)
def test_new_capacity(case: tuple[int, float, str, int | None, tuple[int, int], int]) -> None:
    current, adjustment, kind, step, (minimum, maximum), expected = case
    assert (
        new_capacity(current, adjustment, kind, minimum=minimum, maximum=maximum, min_adjustment_step=step)
        == expected
    )


def test_an_unknown_adjustment_type_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown adjustment_type"):
        new_capacity(1, 1, "doubling", minimum=0, maximum=5)
