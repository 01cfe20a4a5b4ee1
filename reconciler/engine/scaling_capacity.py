"""A scaling group's new size, as Heat's autoscaling computes it (pure functions).

Heat's adjustment types, in both spellings (the HOT one of OS::Heat::ScalingPolicy and the
CloudFormation one of AWS::AutoScaling::ScalingPolicy):

- change_in_capacity: the current size plus the adjustment;
- exact_capacity: the adjustment itself;
- percent_change_in_capacity: the current size plus that percentage of it, a change of less than
  one member rounded away from zero (so any non-zero percentage moves at least one member) and a
  larger one rounded towards zero; `min_adjustment_step`, when larger, is the least change made.

The result is then kept within the group's `min_size` and `max_size`.
"""

from __future__ import annotations

import math

CHANGE_IN_CAPACITY = "change_in_capacity"
EXACT_CAPACITY = "exact_capacity"
PERCENT_CHANGE_IN_CAPACITY = "percent_change_in_capacity"
ADJUSTMENT_TYPES = {
    CHANGE_IN_CAPACITY: CHANGE_IN_CAPACITY,
    EXACT_CAPACITY: EXACT_CAPACITY,
    PERCENT_CHANGE_IN_CAPACITY: PERCENT_CHANGE_IN_CAPACITY,
    "ChangeInCapacity": CHANGE_IN_CAPACITY,
    "ExactCapacity": EXACT_CAPACITY,
    "PercentChangeInCapacity": PERCENT_CHANGE_IN_CAPACITY,
}


def clamp(size: int, minimum: int, maximum: int) -> int:
    """`size` kept within the bounds; the maximum wins over the minimum, as Heat checks it first."""
    if size > maximum:
        return maximum
    return max(size, minimum)


def _percent_change(current: int, percent: float, min_adjustment_step: int | None) -> int:
    delta = current * percent / 100.0
    if math.fabs(delta) < 1.0:
        rounded = int(math.ceil(delta) if delta > 0.0 else math.floor(delta))
    else:
        rounded = int(math.floor(delta) if delta > 0.0 else math.ceil(delta))
    if min_adjustment_step and min_adjustment_step > abs(rounded):
        rounded = min_adjustment_step if rounded > 0 else -min_adjustment_step
    return rounded


def new_capacity(
    current: int,
    adjustment: float,
    adjustment_type: str,
    *,
    minimum: int,
    maximum: int,
    min_adjustment_step: int | None = None,
) -> int:
    """The group's size after applying `adjustment` of `adjustment_type` to `current`."""
    kind = ADJUSTMENT_TYPES.get(adjustment_type)
    if kind is None:
        raise ValueError(f"unknown adjustment_type {adjustment_type!r}")
    if kind == CHANGE_IN_CAPACITY:
        size = current + int(adjustment)
    elif kind == EXACT_CAPACITY:
        size = int(adjustment)
    else:
        size = current + _percent_change(current, adjustment, min_adjustment_step)
    return clamp(size, minimum, maximum)
