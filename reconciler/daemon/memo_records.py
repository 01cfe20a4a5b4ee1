"""A stack's records for a plan, read with the help of its plan memo.

The store stamps a stack's records anew at every write of them and keeps the memo of the last full
plan made at a stamp (`reconciler.plan.settled_memo`). A plan over records still at that stamp
reads none of the settled resources' records: only those of what its template changed, of what
left it, and of what a moving resource's dependents read, each when first asked for. A plan
without a usable memo reads every record, decides which are settled, and keeps its memo.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Protocol

from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.plan import RecordedResource
from reconciler.plan.settled_memo import memo_content, memoizable, settled_by_memo
from reconciler.plan.stack_plan import DesiredStack, resolved_as_recorded
from state import ComparedRecord, PlanMemos

# Records read one by one before the rest are read at once: a change moving many resources reads
# the stack's records in one query, as a plan without a memo does.
SINGLE_READS = 64


class MemoStore(Protocol):
    """What a plan with a memo reads of the state store."""

    def plan_memos(self) -> PlanMemos: ...

    def read_compared_records(self, stack: str) -> list[ComparedRecord]: ...

    def read_compared_records_named(self, stack: str, names: Collection[str]) -> list[ComparedRecord]: ...


class FetchedRecords(Mapping[str, RecordedResource]):
    """The records of one stack, known by name, each read from the store when first asked for."""

    def __init__(self, store: MemoStore, stack: str, names: frozenset[str]) -> None:
        self._store = store
        self._stack = stack
        self._names = names
        self._read: dict[str, RecordedResource] = {}
        self._single_reads = 0
        self._whole = False

    def read_ahead(self, names: Collection[str]) -> None:
        """Read these records in one go (all of them, when they are many)."""
        wanted = [name for name in names if name in self._names and name not in self._read]
        if len(wanted) > SINGLE_READS or len(wanted) * 4 > len(self._names):
            self._read_whole()
        elif wanted:
            self._read.update(recorded_for_plan(self._store.read_compared_records_named(self._stack, wanted)))

    def __getitem__(self, name: str) -> RecordedResource:
        found = self._read.get(name)
        if found is not None:
            return found
        if name not in self._names or self._whole:
            raise KeyError(name)
        self._single_reads += 1
        if self._single_reads > SINGLE_READS:
            self._read_whole()
        else:
            self._read.update(recorded_for_plan(self._store.read_compared_records_named(self._stack, [name])))
        return self._read[name]  # a record gone since the stamp was read: KeyError, as if never recorded

    def _read_whole(self) -> None:
        self._read = recorded_for_plan(self._store.read_compared_records(self._stack))
        self._names = frozenset(self._read)
        self._whole = True

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __contains__(self, name: object) -> bool:
        return name in self._names


def records_for_plan(
    store: MemoStore, stack: str, definition: DesiredStack
) -> tuple[Mapping[str, RecordedResource], frozenset[str]]:
    """The records of `stack` for a plan of `definition`, and the resources settled among them."""
    memo = store.plan_memos().read(stack)  # the stamp first: records written after it leave the memo unkept
    known = settled_by_memo(definition, memo.content) if memo.content is not None else None
    if known is not None:
        fetched = FetchedRecords(store, stack, known.recorded)
        desired = definition.graph().keys()
        fetched.read_ahead((known.recorded - desired) | (desired - known.settled))
        return fetched, known.settled
    return _read_whole(store, stack, definition, memo.stamp)


def keep_plan_memo(store: MemoStore, stack: str, definition: DesiredStack) -> None:
    """Make the memo of `definition` over the stack's records as they are, unless one made at them
    tells of it already (for a stack just converged: its first plan of a change is then quick)."""
    if not memoizable(definition):
        return
    memo = store.plan_memos().read(stack)
    if memo.stamp is None or (
        memo.content is not None and settled_by_memo(definition, memo.content) is not None
    ):
        return
    _read_whole(store, stack, definition, memo.stamp)


def _read_whole(
    store: MemoStore, stack: str, definition: DesiredStack, stamp: str | None
) -> tuple[Mapping[str, RecordedResource], frozenset[str]]:
    """Every record of `stack`, the resources settled among them, and the memo kept at `stamp`."""
    recorded = recorded_for_plan(store.read_compared_records(stack))
    settled = resolved_as_recorded(definition, recorded)
    if stamp is not None:
        content = memo_content(definition, settled, recorded.keys())
        if content is not None:
            store.plan_memos().keep(stack, stamp, content)
    return recorded, settled
