"""Scenario: how calls leave and come back: a closed engine sends nothing, and large builds are polled."""

from __future__ import annotations

from pathlib import Path

from providers.simulated.settings import CloudSettings
from reconciler.engine import EngineSettings, StackStatus
from tests.engine.templates import servers
from tests.engine.world import World


def test_a_closed_engine_sends_nothing_and_keeps_its_intents_for_later(
    tmp_path: Path, database_url: str
) -> None:
    """Given an engine whose call pool has shut down; when a stack is submitted and passes run; then
    no create reaches the cloud, nothing fails, and each intent is kept to be tried again (adopting
    by marker first, as after any create whose outcome is unknown)."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": servers(["web"])})
    networks_before = world.live("networks")
    world.engine.close()

    world.submit("app", "stack.yaml")
    for _ in range(3):
        world.engine.step()

    assert world.live("servers") == [] and world.live("networks") == networks_before
    net = world.records("app")["net"]
    assert (net.status, net.physical_id) == ("CREATE_IN_PROGRESS", None)
    assert net.attempts == 1 and net.next_attempt_at is not None
    world.store.close()


def test_a_hundred_servers_building_at_once_are_all_seen_ready(tmp_path: Path, database_url: str) -> None:
    """Given 100 servers that take 30 s to become ACTIVE; when the stack converges; then every one is
    seen ACTIVE, though each readiness poll observes only those that have waited longest."""
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=30.0))
    names = [f"web{index}" for index in range(100)]
    world.commit({"stack.yaml": servers(names)})
    world.submit("app", "stack.yaml")

    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert report.counts.created == 201  # the network, and a port and a server per name
    records = world.records("app")
    assert {records[name].status for name in names} == {"READY"}
    assert {server["status"] for server in world.live("servers")} == {"ACTIVE"}
    world.close()


def independent_servers(count: int) -> str:
    body = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(count):
        body.append(
            f"  web{index}:\n    type: OS::Nova::Server\n"
            f"    properties: {{name: web{index}, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}}"
        )
    return "\n".join(body) + "\n"


def test_creates_decided_but_not_yet_sent_stay_unsent_once_the_lease_is_lost(
    tmp_path: Path, database_url: str
) -> None:
    """Given worker A with 8 creates decided (intents written) but room in its pool for one at a
    time; when its lease expires and worker B takes the stack over; then A sends none of the others,
    and B converges the stack with no duplicate (it adopts A's one server by its marker)."""
    settings = EngineSettings(pool_size=1, in_flight_per_thread=8, sent_per_thread=1, call_deadline=60.0)
    world = World(tmp_path, database_url, settings=settings)
    world.commit({"stack.yaml": independent_servers(8)})
    world.submit("app", "stack.yaml")
    worker_a = world.engine
    worker_a.step()  # 8 intents written, one create handed to the pool
    worker_a.wait_for_calls()
    assert len(world.live("servers")) == 1

    world.clock.sleep(world.store.settings.lease_seconds + 1)
    worker_b = world.start_worker("worker-b")
    worker_b.step()  # B takes every shard over
    worker_a.step()
    worker_a.wait_for_calls()
    assert len(world.live("servers")) == 1  # the lease is gone: nothing more leaves A

    world.engine = worker_b
    world.submit("app", "stack.yaml")
    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == [f"web{n}" for n in range(8)]
    worker_a.close()
    world.close()
