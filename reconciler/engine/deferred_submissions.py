"""Submissions the store could not take when they came (the database away): made again on a later pass.

A commit handed to the engine between passes (a new generation, a template found INVALID) must not
be lost because the database restarted at that moment: the daemon reads each commit once. What
could not be written waits here, the newest per stack, and every pass tries it again first.
"""

from __future__ import annotations

from collections.abc import Callable

SUBMIT, INVALID = "submit", "invalid"


class DeferredSubmissions:
    """Writes of submissions waiting for the store, by (kind, stack); the newest of each kind wins."""

    def __init__(self) -> None:
        self._waiting: dict[tuple[str, str], Callable[[], object]] = {}

    def __len__(self) -> int:
        return len(self._waiting)

    def keep(self, kind: str, stack: str, write: Callable[[], object]) -> None:
        """`write` failed for now: made again by `retry`, unless a newer one replaces it first."""
        self._waiting.pop((kind, stack), None)
        self._waiting[(kind, stack)] = write  # after the others: submissions keep their order

    def drop(self, stack: str, *kinds: str) -> None:
        """A newer submission of `stack` came: the waiting ones of `kinds` are out of date."""
        for kind in kinds:
            self._waiting.pop((kind, stack), None)

    def retry(self) -> None:
        """Make every waiting write in order; one the store still refuses raises, and it and the
        ones after it keep waiting."""
        for key, write in list(self._waiting.items()):
            write()
            if self._waiting.get(key) is write:
                del self._waiting[key]
