"""Scenario: the daemon keeps a load balancer in front of three servers on a cloud over HTTP.

Given a repository whose stack is a network, three servers and a load balancer with a listener,
a pool, a health monitor and a member per server, and a daemon following it on a simulated cloud
reached through clouds.yaml by openstacksdk; when the daemon converges, then every Octavia object
is ACTIVE with one member per server; when a member is deleted by hand, then the daemon's next
passes make it again without being asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.daemon.http_cloud_world import HttpCloudWorld, http_cloud_world, repository_config
from tests.openstack.test_load_balancer_scenario import TEMPLATE


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpCloudWorld]:
    with http_cloud_world(tmp_path, monkeypatch) as world:
        yield world


def member_addresses(world: HttpCloudWorld) -> list[str]:
    return sorted(str(member["address"]) for member in world.live("members"))


def test_the_daemon_converges_a_load_balanced_stack_and_repairs_a_lost_member(world: HttpCloudWorld) -> None:
    world.commit(
        {"reconciler.yaml": repository_config({"web": "stacks/web.yaml"}), "stacks/web.yaml": TEMPLATE}
    )
    world.start_daemon()
    world.follow()

    assert world.converge_until(lambda: world.report("web").status is StackStatus.CONVERGED)
    addresses = member_addresses(world)
    assert len(addresses) == 3
    assert {lb["provisioning_status"] for lb in world.live("loadbalancers")} == {"ACTIVE"}

    lost = world.live("members")[0]
    world.sim.cloud.vanish("members", str(lost["id"]))
    assert world.converge_until(
        lambda: (
            member_addresses(world) == addresses
            and lost["id"] not in {m["id"] for m in world.live("members")}
        )
    )
