"""A group's pace: Heat's `batch_create` and `rolling_update` update policies, read from the group.

The batches themselves are Heat's (`rolling_batches`, worked through by `group_batches`): at most
`max_batch_size` members renewed per batch, `min_in_service` members kept in service (with
temporary extra members when needed), `pause_time` seconds between batches on the engine's clock.
`batch_create` paces a group's creation; `rolling_update` an update that changes the members'
definition (a change of the count alone is made at once, as Heat makes it). Without a policy a
group works on as many members as the pool allows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class BatchPolicy:
    max_batch_size: int
    pause_time: float = 0.0
    min_in_service: int = 0


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


def batch_policy(update_policy: Any, *, creating: bool, renewing: bool = True) -> BatchPolicy | None:
    """The pace for creating (`batch_create`) or updating (`rolling_update`) members, if any.

    `renewing`: the members' definition changes (Heat rolls an update only then).
    Raises InvalidUpdatePolicy (see `check_update_policy`) for an entry Heat would refuse.
    """
    check_update_policy(update_policy)
    if update_policy is None or not (creating or renewing):
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
    in_service = 0.0
    if key == "rolling_update":
        path = f"update_policy.{key}.min_in_service"
        in_service = _number(path, entry.get("min_in_service", 0), integer=True)
        if in_service < 0:
            raise InvalidUpdatePolicy(f"{path} must not be negative, not {int(in_service)}")
    return BatchPolicy(int(size), float(pause), int(in_service))


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
