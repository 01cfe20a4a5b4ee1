"""The bounded set of threads that run provider calls, and the queue their outcomes come back on.

Not `concurrent.futures.ThreadPoolExecutor`: its submit takes a Python-level semaphore to decide
whether to start a thread, which with thousands of calls queued costs the engine's loop more than
its own work. Here a submit is one put on a C-implemented queue, and threads start one per call
until the pool is full and are never stopped, so the first call runs as soon as one thread is up.

Outcomes come back the same way, on one queue of returned calls: the engine's loop blocks on it
when it has nothing else to do, wakes as soon as a call returns, and never scans the calls still
out (as a `Future` per call would need).

A call that would only wait for another call's answer (a readiness poll joining the observation
another stack's poll makes) gives its thread back instead (`answer_later`): hundreds of polls
waiting on one list call would otherwise hold the threads the creates queued behind them need.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

LOG = logging.getLogger(__name__)
GATHER_SLICE = 0.002  # seconds between looks at the returned calls while gathering them
PRIORITIES = 6  # levels of the chains behind calls told apart; longer chains count as the longest
_RUNNING = threading.local()  # on a pool's thread: the call it runs now (`answer_later` reads it)


class CallCancelled(Exception):
    """The call never ran: the pool shut down, or the call was no longer allowed, before a thread took it."""


class AnsweredLater(BaseException):
    """Raised by a call that took `answer_later()`: its outcome comes from the handle, not its return.

    A BaseException, so that no handler of the call's own errors mistakes it for one.
    """


class Later:
    """The handle of a call whose thread went back to the pool: `answer` delivers its outcome."""

    __slots__ = ("_answered", "_pending", "_returned")

    def __init__(self, pending: PendingCall, returned: queue.SimpleQueue[PendingCall]) -> None:
        self._pending = pending
        self._returned = returned
        self._answered = False

    def answer(self, outcome: Callable[[], Any]) -> None:
        """Deliver what `outcome()` returns, or raises, as the call's outcome (once; on any thread)."""
        if self._answered:
            return
        self._answered = True
        pending = self._pending
        try:
            pending._result = outcome()
        except BaseException as error:  # carried to the engine's loop by `outcome()`, as a run call's
            pending._error = error
        self._returned.put(pending)


def answer_later() -> Later | None:
    """For a call running on a pool's thread that would only wait for an answer another thread
    brings: the handle that delivers its outcome once that answer is in. The call then raises
    `AnsweredLater`, and its thread takes the next call. None off a pool's thread: the call waits."""
    return getattr(_RUNNING, "later", None)


class PendingCall:
    """One call on its way through the pool; `inbox` is where it is delivered once it returned.

    `delivered` is set once the call is in its inbox; `outcome()` is then the call's return
    value, or raises what the call raised (`CallCancelled` if it never ran).
    """

    __slots__ = ("_error", "_result", "allowed", "call", "delivered", "inbox", "tag")

    def __init__(
        self,
        call: Callable[[], Any],
        inbox: deque[PendingCall],
        tag: object,
        allowed: Callable[[], bool] | None = None,
    ) -> None:
        self.call: Callable[[], Any] | None = call
        self.allowed = allowed  # asked right before the call is made: False, and it never is
        self.inbox = inbox
        self.tag = tag  # the caller's own bookkeeping, handed back untouched
        self.delivered = False
        self._result: Any = None
        self._error: BaseException | None = None

    @property
    def cancelled(self) -> bool:
        return isinstance(self._error, CallCancelled)

    def outcome(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._result

    @classmethod
    def elsewhere(cls, inbox: deque[PendingCall], tag: object) -> PendingCall:
        """A call run outside this pool (by another worker); `resolve` delivers its outcome."""
        pending = cls(_run_elsewhere, inbox, tag)
        pending.call = None
        return pending

    def resolve(self, outcome: Any) -> None:
        """The outcome of a call run elsewhere: delivered to the inbox, as the pool delivers."""
        self._result = outcome
        self.delivered = True
        self.inbox.append(self)

    def _run(self, returned: queue.SimpleQueue[PendingCall]) -> bool:
        """Run the call; False when it is answered later (its handle delivers it), not now."""
        call, self.call = self.call, None
        assert call is not None, "a call runs once"
        _RUNNING.later = Later(self, returned)
        try:
            self._result = call()
        except AnsweredLater:
            return False
        except BaseException as error:  # carried to the engine's loop by `outcome()`
            self._error = error
        finally:
            _RUNNING.later = None
        return True

    def _cancel(self, reason: str = "the call pool shut down before this call ran") -> None:
        self.call = self.allowed = None
        self._error = CallCancelled(reason)


def _run_elsewhere() -> Any:
    raise AssertionError("a call run elsewhere is never run by the pool")


class CallPool:
    """Runs submitted calls on `size` threads; returned calls wait in `deliver` for the loop.

    Calls submitted `urgent` (observations, whose answers the loop waits on to see resources
    READY) go ahead of the others still queued, so a readiness poll never waits behind hundreds
    of queued creates. The others go by `priority` (the length of the chain of resources waiting
    on the call's resource): a load balancer's pool that a group of servers waits for is not queued
    behind a thousand leaves' creates. A thread takes a ticket (one per call), then the oldest
    urgent call, or else the oldest call of the highest priority queued.
    """

    def __init__(self, size: int, name: str) -> None:
        self._size = size
        self._name = name
        self._tickets: queue.SimpleQueue[None] = queue.SimpleQueue()
        # one queue per priority, highest first; the first holds the urgent calls
        self._queues: list[queue.SimpleQueue[PendingCall | None]] = [
            queue.SimpleQueue() for _ in range(PRIORITIES + 1)
        ]
        self._returned: queue.SimpleQueue[PendingCall] = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._start_lock = threading.Lock()
        self._closed = False
        self._cancelling = False
        self._submitted = 0  # counted by the loop that submits and delivers: calls still out
        self._delivered = 0

    def submit(
        self,
        call: Callable[[], Any],
        inbox: deque[PendingCall],
        tag: object = None,
        *,
        urgent: bool = False,
        allowed: Callable[[], bool] | None = None,
        priority: int = 0,
    ) -> PendingCall:
        """Queue `call`; once it returned, `deliver` appends it to `inbox`.

        `priority`: of two calls queued, the one with more resources waiting behind it goes first
        (0 to `PRIORITIES` - 1; higher ones count as the highest).

        After `shutdown` nothing runs any more: the call comes back cancelled, without being sent.
        So does a call whose `allowed()` says False when a thread takes it (a lease lost meanwhile).
        """
        pending = PendingCall(call, inbox, tag, allowed)
        self._submitted += 1
        if self._closed:
            pending._cancel()
            self._returned.put(pending)
            return pending
        lane = 0 if urgent else PRIORITIES - min(max(priority, 0), PRIORITIES - 1)
        self._queues[lane].put(pending)
        self._tickets.put(None)
        if len(self._threads) < self._size:
            self._grow()
        return pending

    def calls_out(self) -> int:
        """How many calls submitted have not been delivered yet."""
        return self._submitted - self._delivered

    def deliver(self, timeout: float = 0.0, gather: float = 0.0) -> int:
        """Move every returned call to its inbox; first wait up to `timeout` s for one to return.

        Once one is back, more are taken for up to `gather` s while calls are still out, so that a
        pass handles the calls coming back together rather than one pass each. Returns how many
        calls were delivered.
        """
        returned = self._returned
        pending: PendingCall | None
        try:
            pending = returned.get(timeout=timeout) if timeout > 0 else returned.get_nowait()
        except queue.Empty:
            return 0
        until = time.monotonic() + gather
        delivered = 0
        while pending is not None:
            pending.delivered = True
            pending.inbox.append(pending)
            delivered += 1
            pending = self._gathered(until, delivered)
        self._delivered += delivered
        return delivered

    def _gathered(self, until: float, delivered: int) -> PendingCall | None:
        """The next returned call, if one is back by `until` while calls are still out.

        Waited for in slices of `GATHER_SLICE`, not on the queue: a loop blocked on the queue is
        woken by every call coming back, one wake-up (and one hand-off of the GIL) per call, when
        the point of gathering is to take them together.
        """
        returned = self._returned
        while True:
            try:
                return returned.get_nowait()
            except queue.Empty:
                pass
            remaining = until - time.monotonic()
            if remaining <= 0 or self._submitted == self._delivered + delivered:
                return None
            time.sleep(min(remaining, GATHER_SLICE))

    def wait_delivered(self, calls: list[PendingCall], timeout: float) -> None:
        """Deliver returned calls until every one of `calls` is in its inbox, or `timeout` s passed."""
        end = time.monotonic() + timeout
        waiting = [pending for pending in calls if not pending.delivered]
        while waiting:
            remaining = end - time.monotonic()
            if remaining <= 0:
                return
            self.deliver(timeout=remaining)
            waiting = [pending for pending in waiting if not pending.delivered]

    def shutdown(self, *, cancel_pending: bool = True, wait: bool = True) -> None:
        """Stop taking calls; cancel those not started (if asked), let running ones finish; with
        `wait`, return once every thread has ended.

        Cancelled calls come back (cancelled) like any other, so the loop learns they never ran.
        """
        with self._start_lock:  # no thread starts after these, so each one gets its end
            if not self._closed:
                self._closed = True
                self._cancelling = cancel_pending
                for _ in self._threads:
                    # behind every call queued before: those run or are cancelled first
                    self._queues[-1].put(None)
                    self._tickets.put(None)
        if wait:
            for thread in self._threads:
                thread.join()
            self._threads = []

    def _grow(self) -> None:
        """One more thread, while the pool is not full (its first call is already queued)."""
        with self._start_lock:
            if self._closed or len(self._threads) >= self._size:
                return
            thread = threading.Thread(
                target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True
            )
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        while True:
            self._tickets.get()
            pending = self._next()
            if pending is None:
                return
            if self._cancelling:
                pending._cancel()
            elif pending.allowed is not None and not pending.allowed():
                pending._cancel("no longer allowed when its turn came (its lease was lost): never sent")
                LOG.warning(
                    "stale call dropped: %s: its lease was lost before it was sent; the shard's holder "
                    "decides it again",
                    pending.tag,
                )
            elif not pending._run(self._returned):
                pending = None  # answered later, by the handle it took
                continue
            self._returned.put(pending)
            pending = None  # not kept (with its outcome) while this thread waits for the next call

    def _next(self) -> PendingCall | None:
        """The call this thread's ticket stands for: urgent first, then by priority. Each call is
        queued before its ticket, so one of the queues holds a call for every ticket taken; another
        thread may take the one looked for first, hence the loop."""
        while True:
            for lane in self._queues:
                try:
                    return lane.get_nowait()
                except queue.Empty:
                    continue
