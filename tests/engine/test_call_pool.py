"""The call pool: calls come back on a queue, observations go first, shutdown cancels what never ran."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

import pytest

from reconciler.engine.call_pool import (
    AnsweredLater,
    CallCancelled,
    CallPool,
    Later,
    PendingCall,
    answer_later,
)

WAIT = 10.0  # seconds a test waits at most for a thread; never reached when the pool works


def deliver_all(pool: CallPool, calls: list[PendingCall]) -> None:
    pool.wait_delivered(calls, WAIT)
    assert all(call.delivered for call in calls)


def test_a_returned_call_is_delivered_to_its_inbox_with_its_outcome_and_tag() -> None:
    pool = CallPool(2, "test")
    inbox: deque[PendingCall] = deque()

    call = pool.submit(lambda: 42, inbox, tag="mine")
    deliver_all(pool, [call])

    assert list(inbox) == [call]
    assert (call.outcome(), call.tag, call.cancelled) == (42, "mine", False)
    pool.shutdown()


def test_what_a_call_raised_is_raised_by_its_outcome() -> None:
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()

    def broken() -> None:
        raise ValueError("provider bug")

    call = pool.submit(broken, inbox)
    deliver_all(pool, [call])

    with pytest.raises(ValueError, match="provider bug"):
        call.outcome()
    pool.shutdown()


def blocked_pool() -> tuple[CallPool, threading.Event, deque[PendingCall], list[str]]:
    """A pool of one thread, busy with a call that waits for the returned event."""
    pool = CallPool(1, "test")
    release = threading.Event()
    started = threading.Event()
    ran: list[str] = []
    inbox: deque[PendingCall] = deque()

    def blocking() -> None:
        started.set()
        release.wait(WAIT)
        ran.append("blocking")

    pool.submit(blocking, inbox)
    assert started.wait(WAIT)
    return pool, release, inbox, ran


def recording(ran: list[str], name: str) -> Callable[[], str]:
    def call() -> str:
        ran.append(name)
        return name

    return call


def test_urgent_calls_go_ahead_of_the_calls_already_queued() -> None:
    pool, release, inbox, ran = blocked_pool()
    calls = [
        pool.submit(recording(ran, "create-1"), inbox),
        pool.submit(recording(ran, "create-2"), inbox),
        pool.submit(recording(ran, "observe"), inbox, urgent=True),
    ]

    release.set()
    deliver_all(pool, calls)

    assert ran == ["blocking", "observe", "create-1", "create-2"]
    pool.shutdown()


def test_queued_calls_go_by_priority_after_the_urgent_ones_and_in_order_within_one() -> None:
    pool, release, inbox, ran = blocked_pool()
    calls = [
        pool.submit(recording(ran, "leaf-1"), inbox, priority=1),
        pool.submit(recording(ran, "unranked"), inbox),
        pool.submit(recording(ran, "chain-head"), inbox, priority=5),
        pool.submit(recording(ran, "leaf-2"), inbox, priority=1),
        pool.submit(recording(ran, "longer-than-told-apart"), inbox, priority=99),
        pool.submit(recording(ran, "observe"), inbox, urgent=True),
    ]

    release.set()
    deliver_all(pool, calls)

    assert ran == [
        "blocking",
        "observe",
        "chain-head",
        "longer-than-told-apart",
        "leaf-1",
        "leaf-2",
        "unranked",
    ]
    pool.shutdown()


def answered_later(handles: list[Later]) -> Callable[[], None]:
    """A call that waits for an answer another thread brings: it keeps its handle in `handles`."""

    def call() -> None:
        later = answer_later()
        assert later is not None
        handles.append(later)
        raise AnsweredLater

    return call


def test_a_call_answered_later_frees_its_thread_and_is_delivered_with_its_answer() -> None:
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()
    handles: list[Later] = []

    waiting = pool.submit(answered_later(handles), inbox, tag="poll")
    after = pool.submit(lambda: "create", inbox)
    deliver_all(pool, [after])  # the pool's one thread was not held by the call waiting

    assert list(inbox) == [after] and not waiting.delivered
    handles[0].answer(lambda: "observed")
    handles[0].answer(lambda: "twice")  # a handle answers once
    deliver_all(pool, [waiting])
    assert list(inbox) == [after, waiting]
    assert (waiting.outcome(), waiting.tag) == ("observed", "poll")
    assert pool.calls_out() == 0
    pool.shutdown()


def test_what_a_later_answer_raises_is_raised_by_its_outcome() -> None:
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()
    handles: list[Later] = []

    def broken() -> str:
        raise ValueError("list call failed")

    call = pool.submit(answered_later(handles), inbox)
    pool.wait_delivered([pool.submit(lambda: None, inbox)], WAIT)  # the first call ran before it
    handles[0].answer(broken)
    deliver_all(pool, [call])

    with pytest.raises(ValueError, match="list call failed"):
        call.outcome()
    pool.shutdown()


def test_off_a_pool_thread_there_is_no_later_answer() -> None:
    assert answer_later() is None


def test_shutdown_cancels_what_never_ran_and_hands_it_back() -> None:
    pool, release, inbox, ran = blocked_pool()
    queued = pool.submit(recording(ran, "create"), inbox)

    pool.shutdown(wait=False)
    release.set()
    pool.shutdown()
    pool.deliver()

    assert ran == ["blocking"]
    assert queued in inbox and queued.cancelled
    with pytest.raises(CallCancelled):
        queued.outcome()


def test_a_call_submitted_after_shutdown_is_not_run_but_comes_back_cancelled() -> None:
    pool = CallPool(1, "test")
    pool.shutdown()
    ran: list[str] = []
    inbox: deque[PendingCall] = deque()

    call = pool.submit(recording(ran, "create"), inbox)
    pool.deliver()

    assert ran == []
    assert list(inbox) == [call] and call.cancelled
