"""One stack's cloud calls in flight: decided, sent to this worker's pool, or queued for another worker.

Every call has a deadline, kept in a heap; a call not back by then is abandoned (its handler decides
what that means). Calls decided wait here for room among the `sent_limit` calls handed to the pool,
and when the pool is full and other workers are alive they are queued for them instead (the same
`CallSpec` either way). Only what came back is looked at in a pass (the pool delivers it to this
stack's inbox), never every call still out.
"""

from __future__ import annotations

import heapq
import itertools
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from providers.interface import Provider
from reconciler.engine.call_pool import PendingCall
from reconciler.engine.call_specs import CallSpec
from reconciler.engine.run_context import RunContext

_DISPATCH_ORDER = itertools.count()  # numbers calls as they are sent, for handling them in that order
OBSERVE = "observe"  # the first item of an observation's key


@dataclass(slots=True, eq=False)
class Flight:
    """A call out, or decided and waiting its turn to be sent (`work` set, `call` None)."""

    key: object
    sequence: int  # dispatch order: calls that came back in one pass are handled in this order
    deadline: float
    on_done: Callable[[Any, float], None]
    on_abandon: Callable[[float], None]
    spec: CallSpec  # the call as data: run by this worker's pool, or queued for another worker
    urgent: bool = False
    work: Callable[[], Any] | None = None
    call: PendingCall | None = None
    elsewhere: bool = False  # queued for any worker rather than sent to this worker's pool
    place: tuple[str, int] = ("", -1)  # the stack and shard the call is made for

    def __str__(self) -> str:
        """The call as the journal names it: operation, resource, type, stack and shard (no values)."""
        spec = self.spec
        target = self.key if isinstance(self.key, str) else ", ".join(spec.physical_ids) or "-"
        stack, shard = self.place
        return f"{spec.op} of {target} ({spec.type_name}) in stack {stack}, shard {shard}"

    def forget(self) -> None:
        """Done with: drop the handlers (one refers back to this flight, a cycle otherwise)."""
        self.on_done = _handled
        self.on_abandon = _handled


def _handled(*_: object) -> None:
    """The handler of a flight already dealt with."""


def _no_priority(_key: object) -> int:
    return 0


class CallFlights:
    """The calls of one stack, by key (a resource name, or a tuple for observations and deletes)."""

    def __init__(self, stack: str, shard: int, context: RunContext) -> None:
        self._stack = stack
        self._shard = shard
        self._settings = context.settings
        self._dispatcher = context.dispatcher
        self._shared = context.shared
        self._guards = context.guards
        self._flights: dict[object, Flight] = {}
        self._returned: deque[PendingCall] = deque()  # calls back from the pool, not yet handled
        self._unsent: deque[Flight] = deque()  # in `_flights`, waiting for room in the pool
        self._sent = 0  # calls handed to the pool and not back yet (observations aside)
        self._deadlines: list[tuple[float, int, Flight]] = []  # a heap; entries of returned calls linger
        self._awaiting_ids: list[Callable[[], None]] = []  # creates waiting for their intents' record ids
        # how long the chain of resources waiting on a key's resource is: its calls' priority
        self.priority_of: Callable[[object], int] = _no_priority

    def __contains__(self, key: object) -> bool:
        return key in self._flights

    def __len__(self) -> int:
        return len(self._flights)

    def __iter__(self) -> Iterator[object]:
        return iter(self._flights)

    def outstanding(self) -> int:
        """Calls out, and creates waiting for their intent records to be written before they go."""
        return len(self._flights) + len(self._awaiting_ids)

    def awaiting_ids(self) -> int:
        return len(self._awaiting_ids)

    def has_news(self) -> bool:
        """Whether a call came back, or a call decided waits to be sent: a pass has something to do."""
        return bool(self._returned or self._unsent or self._awaiting_ids)

    def sent_and_not_back(self) -> bool:
        """Whether a call handed to a pool (this worker's or another's) has not come back yet.

        Asked from another thread (the lease loop's): reads a copy, never the dict while it changes.
        """
        for flight in list(self._flights.values()):
            call = flight.call
            if call is not None and not call.delivered:
                return True
        return False

    def acting(self) -> bool:
        """Whether any call other than an observation is out."""
        return any(not (isinstance(key, tuple) and key[0] == OBSERVE) for key in self._flights)

    def acting_on_resources(self) -> int:
        """Calls out for a resource of the stack (keyed by its name)."""
        return sum(1 for key in self._flights if isinstance(key, str))

    def next_deadline(self) -> float | None:
        return self._deadlines[0][0] if self._deadlines else None

    def pending_calls(self) -> tuple[list[PendingCall], list[PendingCall]]:
        """The calls out: (on this worker's pool, queued for any worker)."""
        local: list[PendingCall] = []
        elsewhere: list[PendingCall] = []
        for flight in self._flights.values():
            if flight.call is not None:
                (elsewhere if flight.elsewhere else local).append(flight.call)
        return local, elsewhere

    # Sending ---------------------------------------------------------------------------------

    def dispatch(
        self,
        key: object,
        spec: CallSpec,
        provider: Provider,
        on_done: Callable[[Any, float], None],
        on_abandon: Callable[[float], None],
        *,
        now: float,
        urgent: bool = False,
    ) -> Flight:
        """Send `spec` (run with `provider` on this worker's pool) as soon as there is room."""
        deadline = now + self._settings.call_deadline
        work = partial(spec.run_with, provider)
        flight = Flight(key, next(_DISPATCH_ORDER), deadline, on_done, on_abandon, spec, urgent, work)
        flight.place = (self._stack, self._shard)
        self._flights[key] = flight
        heapq.heappush(self._deadlines, (deadline, flight.sequence, flight))
        if urgent:
            self._send(flight)
        else:
            self._unsent.append(flight)
            self._send_unsent()
        return flight

    def after_ids(self, dispatch: Callable[[], None]) -> None:
        """Run `dispatch` once the intents written this pass have their record ids (`ids_assigned`)."""
        self._awaiting_ids.append(dispatch)

    def ids_assigned(self) -> None:
        waiting, self._awaiting_ids = self._awaiting_ids, []
        for dispatch in waiting:
            dispatch()

    def keep_watching(
        self,
        flight: Flight,
        key: object,
        on_done: Callable[[Any, float], None],
        on_abandon: Callable[[float], None],
        now: float,
    ) -> bool:
        """Watch a call past its deadline under `key`, until it comes back; False if nothing is out."""
        pending = flight.call
        if pending is None or pending.delivered:
            return False  # never sent (nothing can land), or back already (cancelled, never sent)
        flight.key = key
        flight.deadline = now + self._settings.call_deadline
        flight.on_done = on_done
        flight.on_abandon = on_abandon
        self._flights[key] = flight
        heapq.heappush(self._deadlines, (flight.deadline, flight.sequence, flight))
        return True

    def _send_unsent(self) -> None:
        """Hand waiting calls to the pool while it has room: at most `sent_limit` out at once.

        Calls decided (their intents written) wait here rather than deep in the pool's queue: they
        go out only in passes that hold the stack's lease, and the pool never holds more than a
        call or two per thread that could start after a lease was lost.
        """
        limit = self._settings.sent_limit
        unsent = self._unsent
        while unsent and self._sent < limit:
            flight = unsent.popleft()
            if self._flights.get(flight.key) is flight:  # not abandoned meanwhile
                self._send(flight)
        if unsent and self._shared is not None:
            self._queue_elsewhere(self._shared.room())

    def _queue_elsewhere(self, room: int) -> None:
        """The pool is full: queue further calls for other workers, in order, while there is room."""
        shared = self._shared
        unsent = self._unsent
        while unsent and room > 0 and shared is not None:
            flight = unsent[0]
            if self._flights.get(flight.key) is not flight:
                unsent.popleft()  # abandoned meanwhile
                continue
            pending = shared.offer(self._stack, self._shard, flight.spec, self._returned, flight)
            if pending is None:
                return  # not under a lease now: it waits
            unsent.popleft()
            flight.work, flight.call, flight.elsewhere = None, pending, True
            room -= 1

    def _send(self, flight: Flight) -> None:
        work, flight.work = flight.work, None
        assert work is not None
        allowed = None if self._guards is None else self._guards.guard(self._shard)
        flight.call = self._dispatcher.submit(
            work,
            self._returned,
            flight,
            urgent=flight.urgent,
            allowed=allowed,
            priority=self.priority_of(flight.key),
        )
        if not flight.urgent:
            self._sent += 1

    # Collecting ------------------------------------------------------------------------------

    def collect(self, now: float) -> None:
        """Handle the calls that came back, then abandon those past their deadline."""
        if self._returned:
            came_back = sorted(self._returned, key=_dispatch_order)
            self._returned.clear()
            self._sent -= sum(1 for pending in came_back if _counts_as_sent(pending))
            self._send_unsent()  # before handling what came back: the pool is not left idle meanwhile
            for index, pending in enumerate(came_back):
                try:
                    self._returned_call(pending, now)
                except BaseException:
                    self._returned.extend(came_back[index + 1 :])  # handled next pass
                    raise
        deadlines = self._deadlines
        while deadlines:
            deadline, _, flight = deadlines[0]
            current = self._flights.get(flight.key) is flight
            if current and deadline > now:
                break
            heapq.heappop(deadlines)
            if current:
                del self._flights[flight.key]
                flight.on_abandon(now)
        if len(deadlines) > 2 * len(self._flights) + 1024:  # returned calls' entries, dropped at once
            self._deadlines = [(f.deadline, f.sequence, f) for f in self._flights.values()]
            heapq.heapify(self._deadlines)

    def _returned_call(self, pending: PendingCall, now: float) -> None:
        flight = pending.tag
        assert isinstance(flight, Flight)
        # The call and its flight refer to each other: unlinked, what came back (the live body
        # and everything made from it) is freed as soon as it is handled, by reference counting,
        # rather than kept for the cyclic collector, which would walk it first.
        pending.tag = flight.call = None
        flights = self._flights
        if flights.get(flight.key) is not flight:
            flight.forget()
            return  # abandoned at its deadline, perhaps already sent again
        del flights[flight.key]
        if pending.cancelled:
            flight.on_abandon(now)  # never sent (pool shut down, lease lost): decided again by the owner
        else:
            flight.on_done(pending.outcome(), now)
        if flights.get(flight.key) is not flight:  # not watched further under a key of its own
            flight.forget()


def _dispatch_order(pending: PendingCall) -> int:
    flight = pending.tag
    return flight.sequence if isinstance(flight, Flight) else -1


def _counts_as_sent(pending: PendingCall) -> bool:
    """Whether a returned call held a place among this pool's calls out (`sent_limit`)."""
    flight = pending.tag
    return not (isinstance(flight, Flight) and (flight.urgent or flight.elsewhere))
