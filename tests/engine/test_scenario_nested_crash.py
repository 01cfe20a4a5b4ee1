"""Scenario: a worker dies in the middle of a pass over a group of many nested stacks.

A pass writes every nested stack's records, statuses and outputs in one transaction. A worker
killed while that transaction is open leaves none of it: the cloud holds what the calls of the
pass before made, the store does not know of it. Whoever takes the shards over adopts those
resources by their markers and makes the rest: every node exactly once.
"""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.flaky_store import FlakyStore
from tests.engine.group_templates import GROUP, NODE
from tests.engine.world import World

NODES = 30


def recorded_ids(world: World, stack: str, type_name: str) -> set[str]:
    """The physical ids the records of `stack`'s nested stacks hold for resources of `type_name`."""
    return {
        str(record.physical_id)
        for records in world.store.read_records_under(stack).values()
        for record in records
        if record.type == type_name and record.physical_id is not None
    }


def test_a_worker_killed_mid_pass_over_many_nested_stacks_leaves_nothing_twice(
    tmp_path: Path, database_url: str
) -> None:
    """Given worker A building a group of 30 nested stacks (a port, a server and a volume each),
    some made and not yet recorded; when A dies while writing a pass; then worker B, once A's
    lease expired, converges the group with every node's resources made once and all recorded."""
    flakies: list[FlakyStore] = []
    world = World(tmp_path, database_url, store_seen_as=lambda store: FlakyStore.around(store, flakies))
    (flaky,) = flakies
    world.commit({"group.yaml": GROUP, "node.yaml": NODE})
    world.submit("group", "group.yaml", {"count": NODES})
    world.step_until(lambda: len(world.live("servers")) >= NODES // 3)
    worker_a = world.engine

    flaky.unavailable("write_pass")  # A dies in this pass: nothing of its write reaches the store
    worker_a.step()
    worker_a.wait_for_calls()
    made = {str(server["id"]) for server in world.live("servers")}
    assert made - recorded_ids(world, "group", "OS::Nova::Server"), "some servers made, not recorded"

    world.clock.sleep(world.store.settings.lease_seconds + 1)  # A is gone: no pass, no renewal
    world.engine = world.start_worker("worker-b")
    world.submit("group", "group.yaml", {"count": NODES})
    report = world.converge("group")["group"]

    assert report.status is StackStatus.CONVERGED, report.failures
    servers = world.live("servers")
    assert sorted(str(server["name"]) for server in servers) == sorted(
        f"node-{index}" for index in range(NODES)
    )
    assert recorded_ids(world, "group", "OS::Nova::Server") == {str(server["id"]) for server in servers}
    net = world.records("group")["net"].physical_id
    ports = [port for port in world.live("ports") if port["network_id"] == net]
    assert recorded_ids(world, "group", "OS::Neutron::Port") == {str(port["id"]) for port in ports}
    assert len(ports) == NODES
    volumes = world.live("volumes")
    assert recorded_ids(world, "group", "OS::Cinder::Volume") == {str(volume["id"]) for volume in volumes}
    assert len(volumes) == NODES
    worker_a.close()
    world.close()
