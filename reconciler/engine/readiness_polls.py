"""Which resources a readiness poll observes: the longest waiting first, as many as recently came READY.

Resources of one type created one after another become READY in about the order they were
created, and observing every resource still building at every poll would cost the provider (and
its client's CPU) the whole building set each time. So a poll per type observes the `window`
resources that have waited longest. When some of them came READY, more are likely right behind:
the window follows how many did (`GROWTH` times as wide while all of them did, so that it catches
up with a fast stream of creates in a few round trips) and the next poll goes out as soon as this
one is back, without waiting for the interval. When none did, the window shrinks back to
`MIN_WINDOW` and polls keep the interval.

Out-of-order readiness (a small volume behind a large one) is caught by a sweep: every
`SWEEP_EVERY` intervals a poll observes the resources of the type that were already waiting at the
previous sweep and still are. Those that started waiting since are left to the next one: they are
the young ones, mostly still building, and observing them all at every sweep would cost as much as
polling everything. A resource is therefore seen at least once every two sweep periods, however
far from the head of the queue it waits. Small stacks (up to `MIN_WINDOW` resources in progress per
type) are observed whole at every poll.

A type whose resources become READY when a signal arrives (a deployment waits for its script's
result) is `paced`: each of its polls observes all of them (signals come in any order), and each
doubles the wait before the next, up to `signal_poll`, whatever it found; being told a signal was
kept (`poke_paced`) makes the next poll go at once. A thousand deployments waiting for scripts of
minutes are then observed a few times each, not every interval, and not at every pass while
their signals stream in (each of those is observed by itself, as the engine is told of it).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

MIN_WINDOW = 32  # resources per type observed at every poll, however few came READY last time
GROWTH = 4  # how much wider the next window is when the whole of the last one came READY
MAX_WINDOW = 512  # a wider window hands one pass more READY resources than it handles briskly
SWEEP_EVERY = 8  # intervals between sweeps of the resources of a type waiting since the last one
EVERY = 1 << 62  # the window of a paced type: all its resources waiting


@dataclass
class _TypePolls:
    window: int = MIN_WINDOW
    eager: bool = False  # the last poll found resources READY: the next one need not wait
    sweep_at: float | None = None
    waiting_at_sweep: frozenset[str] = field(default_factory=frozenset)  # at the last sweep
    quiet_until: float = 0.0  # a paced type: no poll before then
    quiet_polls: int = 0  # a paced type: its polls in a row since one found a resource READY


@dataclass(frozen=True)
class Poll:
    """One observation to send: the names to observe, and whether it is a sweep."""

    type_name: str
    names: list[str]
    sweep: bool


class ReadinessPolls:
    """The per-type pace of readiness polls for one stack."""

    def __init__(self, paced: Callable[[str], bool] = lambda _type: False, signal_poll: float = 5.0) -> None:
        self._types: dict[str, _TypePolls] = {}
        self._paced = paced
        self._signal_poll = signal_poll

    def quiet_until(self, type_name: str) -> float:
        """When the type may be polled next (0: whenever its interval says)."""
        polls = self._types.get(type_name)
        return 0.0 if polls is None else polls.quiet_until

    def poke_paced(self) -> bool:
        """A signal was kept: the paced types' next polls go at once; whether any was waiting."""
        poked = False
        for polls in self._types.values():
            if polls.quiet_until:
                polls.quiet_until, polls.quiet_polls, poked = 0.0, 0, True
        return poked

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
        plans: dict[str, tuple[int, bool]] = {}  # type -> (window, whether to sweep)
        windows: dict[str, list[str]] = {}
        sweeps: dict[str, list[str]] = {}
        everyone: dict[str, list[str]] = {}  # type -> every name waiting, when sweeping
        finished: set[str] = set()
        for name, type_name in waiting:
            if type_name in finished:
                continue
            plan = plans.get(type_name)
            if plan is None:
                plan = (0, False)
                if candidates is None or type_name in candidates:
                    plan = plans[type_name] = self._plan(type_name, now, interval, interval_due, out)
                if plan == (0, False):
                    finished.add(type_name)
                    continue
            window, sweep = plan
            if sweep:
                self._sweeping(type_name, name, everyone, sweeps)
            names = windows.setdefault(type_name, [])
            if len(names) < window:
                names.append(name)
            elif not sweep:
                finished.add(type_name)
                if candidates is not None and candidates <= finished:
                    break
        for type_name, names in everyone.items():
            self._types[type_name].waiting_at_sweep = frozenset(names)
        polls = [Poll(type_name, names, sweep=False) for type_name, names in windows.items() if names]
        return polls + [Poll(type_name, names, sweep=True) for type_name, names in sweeps.items()]

    def _sweeping(
        self, type_name: str, name: str, everyone: dict[str, list[str]], sweeps: dict[str, list[str]]
    ) -> None:
        """A sweep notes every name waiting, and observes those already waiting at the last sweep."""
        everyone.setdefault(type_name, []).append(name)
        if name in self._types[type_name].waiting_at_sweep:
            sweeps.setdefault(type_name, []).append(name)

    def _plan(
        self,
        type_name: str,
        now: float,
        interval: float,
        interval_due: bool,
        out: Callable[[str, bool], bool],
    ) -> tuple[int, bool]:
        """How many of the type's longest waiting resources to observe now, and whether to sweep."""
        polls = self._types.setdefault(type_name, _TypePolls())
        polling = not out(type_name, False) and (interval_due or polls.eager)
        if self._paced(type_name):
            return self._paced_poll(polls, polling, now, interval), False
        if polls.sweep_at is None:
            polls.sweep_at = now + SWEEP_EVERY * interval
        sweep = interval_due and now >= polls.sweep_at and not out(type_name, True)
        if sweep:
            polls.sweep_at = now + SWEEP_EVERY * interval
        return (polls.window if polling else 0), sweep

    def _paced_poll(self, polls: _TypePolls, polling: bool, now: float, interval: float) -> int:
        """A paced type's window: every resource of it waiting (signals come in any order, and its
        provider reads its own records, not the cloud), once its quiet is over; never a sweep."""
        if not polling or now < polls.quiet_until:
            return 0
        polls.quiet_until = now + min(self._signal_poll, interval * 2 ** min(polls.quiet_polls, 32))
        polls.quiet_polls += 1
        return EVERY

    def observed(self, poll: Poll, resolved: int | None) -> None:
        """`resolved` of the poll's resources left the waiting set (READY, failed or gone); None if
        the observation itself failed (then the next poll waits for the interval)."""
        polls = self._types.setdefault(poll.type_name, _TypePolls())
        if self._paced(poll.type_name):
            # a signal kept is observed by itself when the engine is told (`poke_paced`, or the
            # signalled resources polled alone): a poll of them all finding some READY keeps its pace
            return
        if poll.sweep:
            polls.eager = polls.eager or bool(resolved)
        elif not resolved:
            polls.window = MIN_WINDOW
            polls.eager = False
        elif resolved >= len(poll.names):
            polls.window = min(MAX_WINDOW, max(MIN_WINDOW, GROWTH * len(poll.names)))
            polls.eager = True
        else:
            polls.window = min(MAX_WINDOW, resolved + MIN_WINDOW)
            polls.eager = True
