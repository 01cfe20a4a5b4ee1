"""Which shards this worker may act on, at which epoch: the engine asks once per pass.

`HeldShards` is what the engine needs; the daemon answers it from its lease loop. `SoleWorkerLeases`
is the answer for a one-shot run (`reconciler apply`): it takes the shards of the stacks it is asked
about, renews them as they age, and stops answering for a shard whose lease could expire before the
next write lands (the safety margin), so a paused worker never writes with a stale epoch unawares.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Protocol

from state.lease_results import Acquired, HeldBy
from state.store import Store
from timekeeping import Clock

LOG = logging.getLogger(__name__)


class HeldShards(Protocol):
    def held(self) -> Mapping[int, int]:
        """shard -> epoch of every shard this worker may act on now."""
        ...

    def holds(self, shard: int, epoch: int) -> bool:
        """Whether this worker may still act on `shard` at `epoch` at this moment.

        Asked by the call pool's threads right before each call is sent: no store call, no renewal.
        """
        ...


class SoleWorkerLeases:
    """Acquires shards on demand and renews them; for a single process converging on its own."""

    def __init__(self, store: Store, worker_id: str, clock: Clock) -> None:
        self._store = store
        self._worker = worker_id
        self._clock = clock
        self._until: dict[int, tuple[int, float]] = {}
        self.held_by_others: dict[int, HeldBy] = {}
        # renewals may come from a thread of their own as well as from the engine's passes
        self._renewing = threading.Lock()

    def want(self, shard: int) -> None:
        """Acquire `shard` unless held already (by this worker or, until it expires, another)."""
        with self._renewing:
            if shard in self._until:
                return
            result = self._store.acquire(self._worker, shard)
            if isinstance(result, Acquired):
                self._until[shard] = (result.epoch, result.until)
                self.held_by_others.pop(shard, None)
            else:
                self.held_by_others[shard] = result

    def held(self) -> Mapping[int, int]:
        now = self._clock.now()
        settings = self._store.settings
        due = settings.lease_seconds - settings.renew_seconds
        margin = settings.safety_margin
        with self._renewing:
            if any(until - now <= due for _epoch, until in self._until.values()):
                self._renew_all()
            return {shard: epoch for shard, (epoch, until) in self._until.items() if until - now > margin}

    def _renew_all(self) -> None:
        """Every lease renewed in one statement (not one transaction per shard); one no longer
        held at its epoch is let go."""
        renewed = {held.shard: held for held in self._store.renew_all(self._worker)}
        for shard, (epoch, _until) in list(self._until.items()):
            held = renewed.get(shard)
            if held is not None and held.epoch == epoch:
                self._until[shard] = (epoch, held.until)
            else:
                del self._until[shard]

    @contextmanager
    def renewed_meanwhile(self) -> Iterator[None]:
        """Renew the leases from a thread of their own while the block runs, as the daemon's lease
        loop does: one engine pass longer than a lease (thousands of nested stacks on a busy host)
        must not let them lapse, since a lapsed shard is not taken back at the same epoch."""
        stop = threading.Event()

        def renew() -> None:
            while not stop.wait(self._store.settings.renew_seconds / 2):
                try:
                    self.held()
                except Exception:  # the next beat tries again; the engine's own pass asks as well
                    LOG.warning("renewing the leases failed", exc_info=True)

        thread = threading.Thread(target=renew, name="lease-renewal", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()

    def holds(self, shard: int, epoch: int) -> bool:
        held = self._until.get(shard)
        margin = self._store.settings.safety_margin
        return held is not None and held[0] == epoch and held[1] - self._clock.now() > margin

    def release(self, shard: int) -> None:
        """Hand `shard` back (another worker may take it at once)."""
        with self._renewing:
            held = self._until.pop(shard, None)
        if held is not None:
            self._store.release(self._worker, shard, held[0])

    def release_all(self) -> None:
        with self._renewing:
            held, self._until = self._until, {}
        for shard, (epoch, _until) in held.items():
            self._store.release(self._worker, shard, epoch)
