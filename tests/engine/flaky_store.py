"""A store that goes away for one call now and then, as a restarted database does: the engine's seam
for the database's outages (`DatabaseUnavailable`) and its lost commit answers (`CommitOutcomeUnknown`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from state.errors import CommitOutcomeUnknown, DatabaseUnavailable
from state.store import Store


class FlakyStore:
    """Passes every call to `store`, except the ones armed to fail.

    `unavailable(method, nth)`: the nth next call of `method` fails before reaching the database.
    `answer_lost(method, nth)`: the nth next call of `method` is committed, then its answer is lost.
    """

    def __init__(self, store: Store) -> None:
        self._store = store
        self._armed: dict[str, list[tuple[int, bool]]] = {}
        self.failures = 0

    @classmethod
    def around(cls, store: Store, made: list[FlakyStore]) -> Store:
        """A flaky store around `store`, seen as a store (and appended to `made`, to be armed)."""
        flaky = cls(store)
        made.append(flaky)
        return cast(Store, flaky)

    def unavailable(self, method: str, nth: int = 1) -> None:
        self._armed.setdefault(method, []).append((nth, False))

    def answer_lost(self, method: str, nth: int = 1) -> None:
        self._armed.setdefault(method, []).append((nth, True))

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._store, name)
        if name not in self._armed or not callable(target):
            return target
        return self._guarded(name, target)

    def _guarded(self, name: str, target: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            armed = self._armed[name]
            due = [entry for entry in armed if entry[0] == 1]
            self._armed[name] = [(nth - 1, lost) for nth, lost in armed if nth > 1]
            if not due:
                return target(*args, **kwargs)
            self.failures += 1
            if due[0][1]:
                target(*args, **kwargs)
                raise CommitOutcomeUnknown(name, "connection reset while committing")
            raise DatabaseUnavailable(name, 3, "connection refused")

        return call
