"""What an observation saw is checked a slice per pass, in the order seen; a resource rewritten since
it was seen is left to the next observation."""

from __future__ import annotations

from providers.interface import LiveResource, LiveStatus
from reconciler.engine.observed_backlog import ObservedBacklog
from reconciler.engine.resource_state import RecordStatus, ResourceState

SERVER = "OS::Nova::Server"


def server(index: int) -> ResourceState:
    return ResourceState(
        f"server{index}", SERVER, RecordStatus.READY, 1, physical_id=f"id-{index}", properties={"name": "a"}
    )


def live(state: ResourceState) -> LiveResource:
    assert state.physical_id is not None
    return LiveResource(state.physical_id, SERVER, LiveStatus.READY, {"name": "a"})


class Checks:
    def __init__(self) -> None:
        self.names: list[str] = []

    def __call__(self, state: ResourceState, seen: LiveResource | None, at: float) -> None:
        self.names.append(state.name)


def test_a_slice_checks_at_most_its_limit_in_the_order_seen_and_what_waits_on_them_runs_after() -> None:
    backlog, checks, done = ObservedBacklog(), Checks(), []
    states = [server(index) for index in range(5)]
    for state in states:
        backlog.seen(state, live(state), 0.0, checks)
    backlog.then(lambda: done.append("all seen"))

    backlog.handle_slice(limit=3)
    assert checks.names == ["server0", "server1", "server2"]
    assert backlog and not done

    backlog.handle_slice(limit=3)
    assert checks.names == [f"server{index}" for index in range(5)]
    assert done == ["all seen"] and not backlog


def test_a_resource_rewritten_since_it_was_seen_is_not_judged_on_what_was_seen() -> None:
    backlog, checks = ObservedBacklog(), Checks()
    updated, replaced, untouched = server(0), server(1), server(2)
    for state in (updated, replaced, untouched):
        backlog.seen(state, live(state), 0.0, checks)
    updated.properties = {"name": "b"}  # an update came back meanwhile
    replaced.physical_id = "id-new"  # made again meanwhile

    backlog.handle_slice()

    assert checks.names == ["server2"]
