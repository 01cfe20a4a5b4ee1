"""Pool members created together, sent to Octavia as one batch member update.

Octavia takes one change of a load balancer's tree at a time: every member created on its own
holds the load balancer in PENDING_UPDATE, and the members created meanwhile are refused ("is
immutable") until it is ACTIVE again, so members made one by one are made one after the other.
Octavia's batch member update (`PUT /v2/lbaas/pools/{pool_id}/members`) makes a whole list in one
change. Here the first create of a member of a pool waits until the pool's load balancer may
change (`until_free`: a moment for the others coming with it, then as long as the load balancer
is busy, within a bound), and every create of a member of that pool made meanwhile goes with it
as one call; a lone member still goes as Octavia's plain create. Members coming while a batch is
out open the next one, which waits for the change the first one made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Result = TypeVar("Result")
Request = Mapping[str, Any]
SendOne = Callable[[str, Request], Result]  # (pool id, member) -> the provider's answer
# one answer per member, in order: what it made, or the error that member alone meets
SendMany = Callable[[str, Sequence[Request]], Sequence[Result | BaseException]]


@dataclass
class _Batch(Generic[Result]):
    members: list[Request] = field(default_factory=list)
    done: threading.Event = field(default_factory=threading.Event)
    answers: Sequence[Result | BaseException] = ()
    error: BaseException | None = None


class PoolMemberBatches(Generic[Result]):
    """The member creates of each pool, gathered into one call per pool at a time."""

    def __init__(
        self, send_one: SendOne[Result], send_many: SendMany[Result], until_free: Callable[[str], None]
    ) -> None:
        """`until_free(pool_id)` returns when the pool's load balancer may change (or it gave up
        waiting: the batch then meets Octavia's own refusal)."""
        self._send_one = send_one
        self._send_many = send_many
        self._until_free = until_free
        self._lock = threading.Lock()
        self._open: dict[str, _Batch[Result]] = {}

    def create(self, pool_id: str, member: Request) -> Result:
        """The member made in pool `pool_id`, alone or with the others created at the same time."""
        with self._lock:
            batch = self._open.get(pool_id)
            lead = batch is None
            if batch is None:
                batch = self._open[pool_id] = _Batch()
            position = len(batch.members)
            batch.members.append(member)
        if lead:
            self._send(pool_id, batch)
        else:
            batch.done.wait()
        if batch.error is not None:
            raise batch.error
        answer = batch.answers[position]
        if isinstance(answer, BaseException):
            raise answer
        return answer

    def _send(self, pool_id: str, batch: _Batch[Result]) -> None:
        try:
            self._until_free(pool_id)
        except BaseException as error:
            batch.error = error
        finally:
            with self._lock:
                del self._open[pool_id]  # later members open the next batch
        if batch.error is not None:
            batch.done.set()
            return
        try:
            if len(batch.members) == 1:
                batch.answers = [self._send_one(pool_id, batch.members[0])]
            else:
                batch.answers = self._send_many(pool_id, batch.members)
        except BaseException as error:
            batch.error = error
        finally:
            batch.done.set()


GATHERING = 0.05  # seconds the first member waits for the others created with it
POLL = 0.25  # seconds between looks at a busy load balancer
POLLS = 40  # looks before the batch goes anyway (and meets Octavia's refusal if still busy)


class UntilLoadBalancerFree:
    """`until_free` for `PoolMemberBatches`: the pool's load balancer read until it is not PENDING_*."""

    def __init__(
        self,
        load_balancer_of: Callable[[str], str],
        status_of: Callable[[str], str],
        pause: Callable[[float], None],
    ) -> None:
        """`load_balancer_of(pool_id)` and `status_of(lb_id)` read the cloud; `pause` waits seconds."""
        self._load_balancer_of = load_balancer_of
        self._status_of = status_of
        self._pause = pause
        self._load_balancers: dict[str, str] = {}  # a pool never moves to another load balancer

    def __call__(self, pool_id: str) -> None:
        self._pause(GATHERING)
        lb_id = self._load_balancers.get(pool_id)
        if lb_id is None:
            lb_id = self._load_balancers[pool_id] = self._load_balancer_of(pool_id)
        for _ in range(POLLS):
            if not self._status_of(lb_id).startswith("PENDING_"):
                return
            self._pause(POLL)
