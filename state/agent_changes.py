"""Change counters of agents' metadata: one per slot of servers, moved with every change.

Every transaction that changes what a server's metadata poll answers (its deployments, its
`modified_at`, its tokens) moves the counter of the server's slot, in that transaction; a daemon
that remembers answers per server compares the counters it last read with the ones now, and
forgets the answers of the slots that moved. 64 slots keep the read small and spread concurrent
writers over rows (one counter would make every publishing transaction wait for the one before).
"""

from __future__ import annotations

import zlib
from collections.abc import Collection, Mapping

import sqlalchemy as sa

from state.software_statements import counter_move
from state.software_tables import AGENT_CHANGES

SLOTS = 64

Counters = tuple[int, ...]  # by slot
NO_COUNTERS: Counters = (0,) * SLOTS

_READ = sa.select(AGENT_CHANGES.c.slot, AGENT_CHANGES.c.counter)


def slot_of(server_id: str) -> int:
    """The slot of a server: the same in every process (a checksum, not Python's salted hash)."""
    return zlib.crc32(server_id.encode()) % SLOTS


def move_counters(connection: sa.Connection, server_ids: Collection[str]) -> Mapping[int, int]:
    """Move the counters of these servers' slots, in slot order (so concurrent writers never wait
    for each other in a circle); the counters' new values, by slot."""
    moved: dict[int, int] = {}
    upsert = counter_move(connection.dialect.name)
    for slot in sorted({slot_of(server_id) for server_id in server_ids}):
        moved[slot] = int(connection.execute(upsert, {"slot": slot, "counter": 1}).scalar_one())
    return moved


def read_counters(connection: sa.Connection) -> Counters:
    """Every slot's counter (0 for a slot never moved)."""
    counters = list(NO_COUNTERS)
    for slot, counter in connection.execute(_READ):
        counters[slot] = int(counter)
    return tuple(counters)
