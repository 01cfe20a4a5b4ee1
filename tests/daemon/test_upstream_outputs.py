"""Scenario (issue: "from_stack wiring does not follow output changes in the daemon").

Given the daemon on a real git repository and two stacks on a simulated cloud over HTTP
(openstacksdk): `network` makes a network and outputs its id, `app` reads it through
`{from_stack: network, output: net_id}` (in a security group's description, so the network
can go with nothing of app on it). When the network is deleted behind the daemon's back and
repaired (a new id), or a commit touching only `network` changes its output; then `network`'s
stored outputs follow, `app` converges again to the new value without any commit touching it,
and its note says which upstream stack and output moved.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.daemon.gitops_world import notes_on
from tests.daemon.http_cloud_world import HttpCloudWorld, http_cloud_world, repository_config


def network(resource: str = "net") -> str:
    return f"""heat_template_version: 2018-08-31
resources:
  {resource}:
    type: OS::Neutron::Net
    properties: {{name: app-net}}
outputs:
  net_id: {{value: {{get_resource: {resource}}}}}
"""


APP = """heat_template_version: 2018-08-31
parameters:
  net_id: {type: string}
resources:
  group:
    type: OS::Neutron::SecurityGroup
    properties: {name: app, description: {get_param: net_id}}
"""

WIRING = "    parameters:\n      net_id: {from_stack: network, output: net_id}\n"
STACKS = {"network": "stacks/network.yaml", "app": "stacks/app.yaml"}


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpCloudWorld]:
    with http_cloud_world(tmp_path, monkeypatch) as world:
        yield world


def given_app_wired_to_the_network(world: HttpCloudWorld) -> str:
    config = repository_config(STACKS, extra=WIRING)
    first = world.commit(
        {"reconciler.yaml": config, "stacks/network.yaml": network(), "stacks/app.yaml": APP}
    )
    world.start_daemon()
    world.follow()
    assert world.converge_until(
        lambda: all(world.report(name).status is StackStatus.CONVERGED for name in STACKS)
    )
    assert described_network(world) == net_id(world)
    return first


def net_id(world: HttpCloudWorld) -> object:
    return world.running().daemon.store.read_outputs("network").get("net_id")


def described_network(world: HttpCloudWorld) -> object:
    (group,) = [group for group in world.live("security_groups") if group["name"] == "app"]
    return group["description"]


def app_follows(world: HttpCloudWorld, old_net: object) -> bool:
    """The network's outputs moved on, and app reads the network they name now."""
    current = net_id(world)
    return (
        current != old_net
        and described_network(world) == current
        and world.report("app").status is StackStatus.CONVERGED
    )


def test_a_network_repaired_after_deletion_moves_the_app_to_the_new_one(world: HttpCloudWorld) -> None:
    first = given_app_wired_to_the_network(world)
    old_net = net_id(world)

    world.sim.cloud.vanish("networks", str(old_net))

    assert world.converge_until(lambda: app_follows(world, old_net)), (
        net_id(world),
        described_network(world),
    )
    world.running().daemon.gitops.publish()
    note = notes_on(world.repo, first)["app"]
    assert note.status == "CONVERGED"
    assert "output net_id of stack network moved: converging again" in note.failures


def test_a_commit_touching_only_the_upstream_stack_reaches_the_wired_one(world: HttpCloudWorld) -> None:
    given_app_wired_to_the_network(world)
    old_net = net_id(world)
    world.commit({"stacks/network.yaml": network("net2")}, "network: a new network, under a new name")
    world.follow()

    assert world.converge_until(lambda: app_follows(world, old_net)), (
        net_id(world),
        described_network(world),
    )
