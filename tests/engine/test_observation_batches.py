"""Observations of one type asked for by many stacks at once share provider calls, and no answer is
older than its question."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Collection, Mapping
from functools import partial
from typing import Any

import pytest

from providers.interface import LiveResource, LiveStatus, Marker, ResourceType, Retryable
from reconciler.engine.call_pool import CallPool, PendingCall
from reconciler.engine.observation_batches import ObservationBatches
from reconciler.engine.outcomes import Observed, RetryLater
from reconciler.engine.provider_calls import call_observe

SERVER = "OS::Nova::Server"


class ListingCloud:
    """A provider whose observe lists everything it holds, as the OpenStack one does; the first call
    waits until released, so requests pile up meanwhile."""

    def __init__(self) -> None:
        self.calls: list[frozenset[str]] = []
        self.holds: set[str] = set()
        self.first_out = threading.Event()
        self.release = threading.Event()
        self.failing = False

    def resource_types(self) -> Mapping[str, ResourceType]:
        return {}

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        raise NotImplementedError

    def update(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise NotImplementedError

    def delete(self, type_name: str, physical_id: str) -> None:
        raise NotImplementedError

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        raise NotImplementedError

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        self.calls.append(frozenset(physical_ids))
        seen = set(self.holds)  # what the list call sees is what the cloud held when it started
        if len(self.calls) == 1:
            self.first_out.set()
            self.release.wait(5)
        if self.failing:
            raise Retryable("503 from the cloud")
        return {
            name: LiveResource(name, type_name, LiveStatus.READY) for name in seen if name in physical_ids
        }


def _ask(batches: ObservationBatches, names: list[str]) -> tuple[list[threading.Thread], dict[str, Any]]:
    answers: dict[str, Any] = {}

    def ask(name: str) -> None:
        try:
            answers[name] = batches.observe(SERVER, [name])
        except Retryable as error:
            answers[name] = error

    threads = [threading.Thread(target=ask, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    return threads, answers


def test_requests_made_while_a_call_is_out_go_together_as_the_next_call() -> None:
    cloud = ListingCloud()
    cloud.holds = {"early"}
    batches = ObservationBatches(cloud)
    first, first_answer = _ask(batches, ["early"])
    assert cloud.first_out.wait(5)
    cloud.holds |= {f"member-{index}" for index in range(20)}  # created after the first call started

    threads, answers = _ask(batches, [f"member-{index}" for index in range(20)])
    cloud.release.set()
    for thread in [*first, *threads]:
        thread.join(5)

    assert len(cloud.calls) == 2
    assert cloud.calls[1] == {f"member-{index}" for index in range(20)}
    assert first_answer["early"].keys() == {"early"}
    for index in range(20):  # each sees its own resource, which the first call could not have seen
        assert answers[f"member-{index}"].keys() == {f"member-{index}"}


def test_a_failed_call_fails_every_request_it_carried() -> None:
    cloud = ListingCloud()
    cloud.failing = True
    batches = ObservationBatches(cloud)
    first, _ = _ask(batches, ["a"])
    assert cloud.first_out.wait(5)
    threads, answers = _ask(batches, ["b", "c"])
    cloud.release.set()
    for thread in [*first, *threads]:
        thread.join(5)

    assert len(cloud.calls) == 2
    assert all(isinstance(answer, Retryable) for answer in answers.values())
    with pytest.raises(Retryable):
        batches.observe(SERVER, ["d"])


def _polls(
    pool: CallPool, cloud: ListingCloud, names: list[str], inbox: deque[PendingCall]
) -> list[PendingCall]:
    """One readiness poll of each server named, sent as the engine sends them."""
    return [
        pool.submit(partial(call_observe, cloud, SERVER, [name]), inbox, tag=name, urgent=True)
        for name in names
    ]


@pytest.mark.parametrize("failing", [False, True])
def test_polls_joining_a_list_call_out_hold_no_thread_of_the_pool(failing: bool) -> None:
    cloud = ListingCloud()
    cloud.holds = {f"member-{index}" for index in range(20)}
    cloud.failing = failing
    pool = CallPool(3, "test")
    inbox: deque[PendingCall] = deque()
    first = _polls(pool, cloud, ["member-0"], inbox)
    assert cloud.first_out.wait(5)

    # One thread makes the list call, one waits to make the next; the third is not held by the
    # nineteen polls that join that next call, and runs a create meanwhile.
    polls = _polls(pool, cloud, [f"member-{index}" for index in range(1, 20)], inbox)
    create = pool.submit(lambda: "created", inbox)
    pool.wait_delivered([create], 5)
    assert create.delivered and not any(poll.delivered for poll in polls)

    cloud.release.set()
    pool.wait_delivered([*first, *polls], 5)
    assert len(cloud.calls) == 2
    for poll in [*first, *polls]:
        outcome = poll.outcome()
        if failing:
            assert isinstance(outcome, RetryLater) and "503" in outcome.message
        else:  # each poll sees its own server, and only it
            assert isinstance(outcome, Observed) and set(outcome.live) == {poll.tag}
    pool.shutdown()
