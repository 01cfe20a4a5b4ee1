"""Desired state is HEAD: the stacks the database holds resources of that HEAD no longer declares.

Removing a stack is noticed from the state, not from the commits a daemon happened to read: one
that starts after the commit removing a stack, or fetches several commits at once, finds the stack
here on its first pass and prunes it like any other removal. Only the stacks on the shards this
daemon holds are looked at (their holder is the one that acts on them).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from state import Store

# A generation recorded before the policy was kept with it prunes by the documented default.
DEFAULT_PRUNE = True


@dataclass(frozen=True)
class UndeclaredStack:
    """A stack with resources that HEAD's `reconciler.yaml` does not name; `prune` as last recorded."""

    name: str
    prune: bool


def undeclared_stacks(
    store: Store, shards: Collection[int], declared: Collection[str], known: Collection[str]
) -> list[UndeclaredStack]:
    """The stacks on `shards` holding resources, neither `declared` nor already `known` (being removed)."""
    names = [name for name in store.stacks_holding_records(list(shards)) if name not in declared]
    return [UndeclaredStack(name, _recorded_prune(store, name)) for name in names if name not in known]


def _recorded_prune(store: Store, stack: str) -> bool:
    newest = store.newest_generation(stack)
    return bool(newest.inputs.get("prune", DEFAULT_PRUNE)) if newest is not None else DEFAULT_PRUNE
