"""What a daemon remembers of its agents' metadata versions, so a poll that holds the current
version is answered from memory instead of a database read.

An entry (a server token's digest -> the server and its `modified_at`) is tagged with the counter
of the server's slot (`agent_changes`) as this process knew it *before* the entry was read from
the database, and is good while the counter known for that slot stays the same. A change made
through this process moves the known counter as soon as it commits (`advance`); a change made by
another daemon of a fleet when the counters are read again, which happens when an answer is asked
for more than `freshness` seconds after the last read. Counters known never go backwards, so an
entry once stale never becomes good again.

Only polls answered without a body use what is remembered: a document is always read afresh.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from state.agent_changes import NO_COUNTERS, Counters, slot_of
from timekeeping import Clock

FRESHNESS_SECONDS = 0.5


@dataclass(frozen=True)
class MetadataVersion:
    """The server a metadata token reads, and when its metadata last changed (None: never)."""

    server_id: str
    modified_at: float | None


@dataclass(frozen=True)
class _Remembered:
    version: MetadataVersion
    slot: int
    counter: int


class MetadataIndex:
    """Token digest -> metadata version, checked against the change counters; thread-safe."""

    def __init__(self, clock: Clock, freshness: float = FRESHNESS_SECONDS) -> None:
        self._clock = clock
        self._freshness = freshness
        self._counters: Counters = NO_COUNTERS
        self._read_at = float("-inf")
        self._entries: dict[str, _Remembered] = {}
        self._reading = threading.Lock()  # one thread reads the counters at a time
        self._moving = threading.Lock()  # counters are replaced by one thread at a time

    @property
    def counters(self) -> Counters:
        """The counters known now: take them before reading an entry, hand them to `remember`."""
        return self._counters

    def remembered(self, digest: str) -> MetadataVersion | None:
        """The version remembered for this digest if it is still current as far as is known, and
        the counters were read recently enough; None otherwise (read it from the database)."""
        if self._clock.now() - self._read_at > self._freshness:
            return None
        entry = self._entries.get(digest)
        if entry is None or entry.counter != self._counters[entry.slot]:
            return None
        return entry.version

    def remember(self, digest: str, version: MetadataVersion, before: Counters) -> None:
        """Keep a version read from the database after the counters `before` were known."""
        slot = slot_of(version.server_id)
        self._entries[digest] = _Remembered(version, slot, before[slot])

    def forget(self, digest: str) -> None:
        self._entries.pop(digest, None)

    def refresh(self, read: Callable[[], Counters]) -> None:
        """Read the counters again (`read`) if they are due; while one thread reads them, the
        others go on with the ones known."""
        if self._clock.now() - self._read_at <= self._freshness:
            return
        if not self._reading.acquire(blocking=False):
            return
        try:
            read_at = self._clock.now()
            self._take(dict(enumerate(read())))
            self._read_at = read_at
        finally:
            self._reading.release()

    def advance(self, moved: Mapping[int, int]) -> None:
        """Counters a committed transaction of this process moved (slot -> new value)."""
        if moved:
            self._take(moved)

    def _take(self, counters: Mapping[int, int]) -> None:
        with self._moving:
            known = list(self._counters)
            changed = {slot for slot, counter in counters.items() if counter > known[slot]}
            for slot in changed:
                known[slot] = counters[slot]
            self._counters = tuple(known)
        if changed:
            self._drop_stale()

    def _drop_stale(self) -> None:
        """Forget entries of slots that moved, so tokens revoked or servers gone do not stay."""
        counters = self._counters
        for digest, entry in list(self._entries.items()):
            if entry.counter != counters[entry.slot]:
                self._entries.pop(digest, None)
