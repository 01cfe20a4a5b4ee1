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


def batch_policy(update_policy: Any, *, creating: bool) -> BatchPolicy | None:
    """The pace for creating (`batch_create`) or updating (`rolling_update`) members, if any."""
    if not isinstance(update_policy, Mapping):
        return None
    entry = update_policy.get("batch_create" if creating else "rolling_update")
    if not isinstance(entry, Mapping):
        return None
    try:
        size = int(entry.get("max_batch_size", 1))
        pause = float(entry.get("pause_time", 0) or 0)
    except (TypeError, ValueError):
        return None
    return BatchPolicy(max(1, size), max(0.0, pause))
