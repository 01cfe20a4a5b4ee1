"""Observations of one type asked for at once by many stacks, made as one provider call.

A provider observes a type with paged list calls over the whole project (its managed resources),
whatever ids it is asked for. Every stack observes on its own (a group's members are stacks of
their own), so hundreds of member stacks polling their one building server each would list every
server hundreds of times: list calls grew with the number of stacks, not with the work.

Here the observations of one type on one provider share calls: while one is out, those asked for
meanwhile wait and go together as the next call, for the union of their ids. A call never serves a
request made after it started, so an answer is never older than its question: a resource created
just before it was asked for is not missed.

A request that joins a call another request makes need not wait on its thread: given `joined`, it
is handed its answer once that call is back, on the thread that made it.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Collection, Mapping
from functools import partial

from providers.interface import LiveResource, Provider

Answer = Callable[[], Mapping[str, LiveResource]]  # returns a request's answer, or raises the call's error


class _Batch:
    """One provider call for the ids of every request that joined it before it started."""

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.done = threading.Event()
        self.live: Mapping[str, LiveResource] = {}
        self.error: BaseException | None = None
        self.joined: list[Callable[[], None]] = []  # requests answered when it is back, holding no thread


class _TypeCalls:
    """The call of one type out now (if any) and the one gathering the requests made meanwhile."""

    def __init__(self) -> None:
        self.running: _Batch | None = None
        self.gathering: _Batch | None = None


class ObservationBatches:
    """The observation calls of one provider, shared by the requests made while one is out."""

    def __init__(self, provider: Provider) -> None:
        self._provider = provider
        self._lock = threading.Lock()
        self._types: dict[str, _TypeCalls] = {}

    def observe(
        self,
        type_name: str,
        physical_ids: Collection[str],
        joined: Callable[[Answer], None] | None = None,
    ) -> Mapping[str, LiveResource] | None:
        """What `provider.observe` answers for `physical_ids`, from a call started after this request.

        With `joined`, a request that joins a call another request makes returns None at once, and
        `joined(answer)` is called on that request's thread once the call is back.
        """
        wanted = set(physical_ids)
        batch, lead = self._join(type_name, wanted, joined)
        if lead:
            self._run(type_name, batch)
        elif joined is not None:
            return None
        else:
            batch.done.wait()
        return _answer(batch, wanted)

    def _join(
        self, type_name: str, wanted: set[str], joined: Callable[[Answer], None] | None
    ) -> tuple[_Batch, bool]:
        """The batch this request goes with, and whether this request makes its call."""
        with self._lock:
            calls = self._types.setdefault(type_name, _TypeCalls())
            if calls.running is None:
                batch = calls.running = _Batch()
                batch.ids |= wanted
                return batch, True
            if calls.gathering is not None:
                calls.gathering.ids |= wanted
                if joined is not None:  # a gathering batch has not started: it cannot be back yet
                    calls.gathering.joined.append(partial(joined, partial(_answer, calls.gathering, wanted)))
                return calls.gathering, False
            batch = calls.gathering = _Batch()
            batch.ids |= wanted
            return batch, True  # its first request makes its call, once the one out is back

    def _run(self, type_name: str, batch: _Batch) -> None:
        calls = self._types[type_name]
        while True:
            with self._lock:
                out = calls.running
                if out is None or out is batch:
                    calls.running = batch
                    if calls.gathering is batch:
                        calls.gathering = None  # closed: later requests gather for the next call
                    break
            out.done.wait()
        try:
            batch.live = self._provider.observe(type_name, batch.ids)
        except BaseException as error:
            batch.error = error
        finally:
            with self._lock:
                # The requests gathered meanwhile go next: its first request makes the call.
                calls.running, calls.gathering = calls.gathering, None
                joined, batch.joined = batch.joined, []
            batch.done.set()
            for answer in joined:
                answer()


def _answer(batch: _Batch, wanted: set[str]) -> Mapping[str, LiveResource]:
    """A request's share of its batch's answer, or the call's error."""
    if batch.error is not None:
        raise batch.error
    # each of a batch's waiters takes its own ids: a walk of the whole answer each would cost
    # waiters x answer (a hundred stacks' polls of one server each, in a batch of hundreds)
    live = batch.live
    return {physical_id: live[physical_id] for physical_id in wanted if physical_id in live}


_BATCHES: weakref.WeakKeyDictionary[Provider, ObservationBatches] = weakref.WeakKeyDictionary()
_BATCHES_LOCK = threading.Lock()


def observe_together(
    provider: Provider,
    type_name: str,
    physical_ids: Collection[str],
    joined: Callable[[Answer], None] | None = None,
) -> Mapping[str, LiveResource] | None:
    """`provider.observe`, sharing its calls with the other requests made while one is out (see
    `ObservationBatches.observe` for `joined`)."""
    with _BATCHES_LOCK:
        batches = _BATCHES.get(provider)
        if batches is None:
            batches = _BATCHES[provider] = ObservationBatches(provider)
    return batches.observe(type_name, physical_ids, joined)
