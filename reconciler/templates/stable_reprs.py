"""A repr that is the same in every process: sets sorted, mappings by key, dataclasses by field.

Digests that name cached work (load images, check verdicts) are read by other processes (the next
`reconciler plan`, a restarted daemon, another daemon of the fleet); `repr` of a frozenset follows
the process's string hashing, so a digest of one would never match outside the process making it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any


def stable_repr(value: Any) -> str:
    """`value`'s repr with its sets, mappings and dataclasses in an order every process gives."""
    return repr(_canonical(value))


def _canonical(value: Any) -> Any:
    if isinstance(value, frozenset | set):
        return ("set", sorted((_canonical(item) for item in value), key=repr))
    if isinstance(value, Mapping):
        return ("map", sorted(((_canonical(key), _canonical(item)) for key, item in value.items()), key=repr))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return (
            type(value).__name__,
            [(field.name, _canonical(getattr(value, field.name))) for field in fields],
        )
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    return value
