"""Retry requests (`reconciler retry`, from any host) read from the store for the shards held."""

from __future__ import annotations

import math
from collections.abc import Mapping

from state.retry_requests import RequestedRetry
from state.store import Store


class RetryRequests:
    """The requests waiting on the shards this worker holds, read every `poll` seconds."""

    def __init__(self, store: Store, poll: float) -> None:
        self._store = store
        self._poll = poll
        self._read_at = -math.inf

    def due(self, held: Mapping[int, int], now: float) -> list[RequestedRetry]:
        """The requests on `held` shards (when a read is due), oldest first; call `done` once acted on."""
        if not held or now < self._read_at + self._poll:
            return []
        self._read_at = now
        return self._store.requested_retries(list(held))

    def done(self, requests: list[RequestedRetry]) -> None:
        self._store.forget_retries([request.id for request in requests])
