"""Which resources a readiness poll observes: the longest waiting first, as many as recently came READY.

Resources of one type created one after another become READY in about the order they were
created. Observing every resource still building at every poll costs the provider (and its
client's CPU) the whole building set each time: ten thousand servers polled four times a second
during their two seconds of BUILD are eighty thousand observations for ten thousand results. So a
poll per type observes the `window` resources that have waited longest. When some of them came
READY, more are likely right behind: the window follows how many did (doubling while all of them
did) and the next poll goes out as soon as this one is back, without waiting for the interval.
When none did, the window shrinks back to `MIN_WINDOW` and polls keep the interval.

Out-of-order readiness (a small volume behind a large one) is caught by a sweep: every
`SWEEP_EVERY` intervals a poll observes every resource of the type still waiting. Small stacks
(up to `MIN_WINDOW` resources in progress per type) are observed whole at every poll, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

MIN_WINDOW = 32  # resources per type observed at every poll, however few came READY last time
SWEEP_EVERY = 8  # intervals between polls that observe every waiting resource of a type


@dataclass
class _TypePolls:
    window: int = MIN_WINDOW
    eager: bool = False  # the last poll found resources READY: the next one need not wait
    sweep_at: float | None = None


@dataclass(frozen=True)
class Poll:
    """One observation to send: the names to observe, and whether it is a sweep of all of them."""

    type_name: str
    names: list[str]
    sweep: bool


class ReadinessPolls:
    """The per-type pace of readiness polls for one stack."""

    def __init__(self) -> None:
        self._types: dict[str, _TypePolls] = {}

    def choose(
        self,
        waiting: Iterable[tuple[str, str]],
        *,
        now: float,
        interval: float,
        interval_due: bool,
        out: Callable[[str, bool], bool],
    ) -> list[Poll]:
        """The polls to send now; `waiting` is (name, type) of the resources waiting, longest first.

        `out(type, sweep)` says whether that type's poll (or sweep) is still out: no second one
        is sent before it is back. Between intervals only types whose last poll found resources
        READY are polled, and `waiting` is read only as far as their windows reach.
        """
        candidates: set[str] | None = None  # None: every type
        if not interval_due:
            candidates = {name for name, polls in self._types.items() if polls.eager and not out(name, False)}
            if not candidates:
                return []
        limits: dict[str, int | None] = {}  # type -> how many to observe (None: all of them)
        chosen: dict[str, list[str]] = {}
        finished: set[str] = set()
        for name, type_name in waiting:
            if type_name in finished:
                continue
            if type_name not in chosen:
                limit = None
                if candidates is None or type_name in candidates:
                    limit = self._limit(type_name, now, interval, interval_due, out)
                if limit == 0 or (limit is None and candidates is not None):
                    finished.add(type_name)
                    continue
                limits[type_name] = limit
                chosen[type_name] = []
            names = chosen[type_name]
            names.append(name)
            limit = limits[type_name]
            if limit is not None and len(names) >= limit:
                finished.add(type_name)
                if candidates is not None and candidates <= finished:
                    break
        return [Poll(name, names, sweep=limits[name] is None) for name, names in chosen.items()]

    def _limit(
        self,
        type_name: str,
        now: float,
        interval: float,
        interval_due: bool,
        out: Callable[[str, bool], bool],
    ) -> int | None:
        """How many of the type's waiting resources to observe now: None for all (a sweep), 0 for none."""
        polls = self._types.setdefault(type_name, _TypePolls())
        if polls.sweep_at is None:
            polls.sweep_at = now + SWEEP_EVERY * interval
        if interval_due and now >= polls.sweep_at and not out(type_name, True):
            polls.sweep_at = now + SWEEP_EVERY * interval
            return None
        if out(type_name, False) or not (interval_due or polls.eager):
            return 0
        return polls.window

    def observed(self, poll: Poll, resolved: int | None) -> None:
        """`resolved` of the poll's resources left the waiting set (READY, failed or gone); None if
        the observation itself failed (then the next poll waits for the interval)."""
        polls = self._types.setdefault(poll.type_name, _TypePolls())
        if poll.sweep:
            polls.eager = polls.eager or bool(resolved)
        elif not resolved:
            polls.window = MIN_WINDOW
            polls.eager = False
        elif resolved >= len(poll.names):
            polls.window = max(MIN_WINDOW, 2 * len(poll.names))
            polls.eager = True
        else:
            polls.window = resolved + MIN_WINDOW
            polls.eager = True
