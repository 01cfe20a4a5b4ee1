"""A group's pace: Heat's `batch_create` and `rolling_update` update policies, read from the group.

`max_batch_size` members are worked on at once; after a batch the group waits `pause_time` seconds
before starting the next. Without a policy a group works on as many members as the pool allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BatchPolicy:
    max_batch_size: int
    pause_time: float = 0.0


class InvalidUpdatePolicy(ValueError):
    """An update_policy entry of the wrong shape or out of range; the message names the property."""


ENTRIES = ("batch_create", "rolling_update")


def check_update_policy(update_policy: Any) -> None:
    """Raise InvalidUpdatePolicy when a `batch_create` or `rolling_update` entry is not one Heat takes."""
    if update_policy is None:
        return
    if not isinstance(update_policy, Mapping):
        raise InvalidUpdatePolicy(f"update_policy must be a map, not {_shown(update_policy)}")
    for key in ENTRIES:
        if update_policy.get(key) is not None:
            _read_entry(key, update_policy[key])


def batch_policy(update_policy: Any, *, creating: bool) -> BatchPolicy | None:
    """The pace for creating (`batch_create`) or updating (`rolling_update`) members, if any.

    Raises InvalidUpdatePolicy (see `check_update_policy`) for an entry Heat would refuse.
    """
    check_update_policy(update_policy)
    if update_policy is None:
        return None
    key = ENTRIES[0] if creating else ENTRIES[1]
    entry = update_policy.get(key)
    return None if entry is None else _read_entry(key, entry)


def _read_entry(key: str, entry: Any) -> BatchPolicy:
    if not isinstance(entry, Mapping):
        raise InvalidUpdatePolicy(f"update_policy.{key} must be a map, not {_shown(entry)}")
    size = _number(f"update_policy.{key}.max_batch_size", entry.get("max_batch_size", 1), integer=True)
    if size < 1:
        raise InvalidUpdatePolicy(f"update_policy.{key}.max_batch_size must be at least 1, not {size}")
    pause = _number(f"update_policy.{key}.pause_time", entry.get("pause_time", 0), integer=False)
    if pause < 0:
        raise InvalidUpdatePolicy(f"update_policy.{key}.pause_time must not be negative, not {pause}")
    return BatchPolicy(int(size), float(pause))


def _number(path: str, value: Any, *, integer: bool) -> float:
    """`value` as a number, from a number or its string form (as Heat reads integer properties)."""
    wanted = "an integer" if integer else "a number"
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise InvalidUpdatePolicy(f"{path} must be {wanted}, not {_shown(value)}")
    try:
        number = float(value)
    except ValueError:
        raise InvalidUpdatePolicy(f"{path} must be {wanted}, not {_shown(value)}") from None
    if integer and not number.is_integer():
        raise InvalidUpdatePolicy(f"{path} must be {wanted}, not {_shown(value)}")
    return number


def _shown(value: Any) -> str:
    return f"{type(value).__name__} {value!r}"[:80]


class GroupPace:
    """A group's pace in its coordinator: `max_batch_size` members in progress, then a pause."""

    def __init__(self) -> None:
        self.policy: BatchPolicy | None = None
        self._resume_at = 0.0
        self.full = False  # ready work held back by the batch size or pause in the last pass

    def has_room(self, now: float, in_progress: int) -> bool:
        """Whether another member may start now, with `in_progress` members under way."""
        batch = self.policy
        if batch is None:
            return True
        if in_progress == 0 and self._resume_at == -1.0:
            self._resume_at = now + batch.pause_time  # a batch just finished
        if now < self._resume_at:
            return False
        if in_progress >= batch.max_batch_size:
            self._resume_at = -1.0  # full: pause once it empties
            return False
        return True

    def resume_at(self) -> float | None:
        """When work held back by a pause may start (None: nothing held back on the clock)."""
        return self._resume_at if self.full and self._resume_at > 0 else None
