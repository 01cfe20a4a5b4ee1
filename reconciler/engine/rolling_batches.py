"""Heat's batch arithmetic for groups: how many members a batch holds and how many it renews.

A rolling update (and `batch_create`, a rolling update from nothing with `min_in_service` 0) goes
in batches. Each batch has a capacity (the members the group holds while it runs, above the
target when `min_in_service` asks for temporary extra members) and a number of members given the
new definition, created or updated. The next batch follows from where the group stands, so a
coordinator that took over mid-update carries on from its records: the target size, the members
there now, and how many of the members that will stay already have the new definition.

`batch_members` says which members a batch creates, updates and deletes: members beyond the
capacity go first, then the highest index below the target is renewed first, and members kept
above the target (the temporary ones) are never renewed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Batch:
    capacity: int  # the members the group holds during the batch
    renewed: int  # members given the new definition in it, created or updated


@dataclass(frozen=True)
class BatchMembers:
    """What one batch does to the members, by name."""

    create: tuple[str, ...]
    update: tuple[str, ...]
    delete: tuple[str, ...]

    def acting_on(self) -> frozenset[str]:
        return frozenset((*self.create, *self.update, *self.delete))


def needs_update(target: int, current: int, up_to_date: int) -> bool:
    """Whether another batch is due: not yet `target` members, all with the new definition."""
    return not (up_to_date >= current and current == target)


def next_batch(target: int, current: int, up_to_date: int, batch_size: int, min_in_service: int) -> Batch:
    """The next batch, from the target size, the members now, and how many of those kept are new."""
    in_service = min(min_in_service, target, current)
    renewed = min(batch_size, max(target - up_to_date, 0))
    capacity = renewed + max(min(current, target - renewed), in_service)
    return Batch(capacity, renewed)


def all_batches(target: int, current: int, batch_size: int, min_in_service: int) -> list[Batch]:
    """Every batch of an update from `current` members, none with the new definition, to `target`."""
    batches: list[Batch] = []
    up_to_date = 0
    while needs_update(target, current, up_to_date):
        batch = next_batch(target, current, up_to_date, batch_size, min_in_service)
        batches.append(batch)
        # members made above both the old and the new size are temporary: they do not count
        up_to_date += batch.renewed - max(batch.capacity - max(current, target), 0)
        current = batch.capacity
    return batches


def batch_members(
    names: Sequence[str], members: Mapping[str, bool], target: int, batch: Batch
) -> BatchMembers:
    """Which members `batch` creates, updates and deletes.

    `names` are the member names in order (removed names skipped), at least `batch.capacity` of
    them; `members` maps each member there now to whether it has the new definition.
    """
    wanted = list(names[: batch.capacity])
    position = {name: index for index, name in enumerate(wanted)}
    delete = tuple(name for name in members if name not in position)
    kept = [name for name in members if name in position]

    def renewal_order(name: str) -> int:
        index = position[name]
        return target - index if index < target else batch.capacity

    create = tuple(name for name in wanted if name not in members)[: max(batch.capacity - len(kept), 0)]
    to_replace = batch.renewed - len(create)
    update: list[str] = []
    for name in sorted(kept, key=renewal_order):
        if to_replace <= 0:
            break
        if not members[name]:
            update.append(name)
            to_replace -= 1
    return BatchMembers(create, tuple(update), delete)


def up_to_date_kept(names: Sequence[str], members: Mapping[str, bool], target: int) -> int:
    """How many of the members that will stay (the first `target` names) have the new definition."""
    return sum(1 for name in names[:target] if members.get(name, False))
