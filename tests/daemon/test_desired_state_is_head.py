"""Scenario (issue: "prune follows the commits it happened to see"): desired state is HEAD.

Given a real git repository with two stacks on a simulated cloud over HTTP (openstacksdk), and a
daemon that converged both and stopped; when a commit removes one stack from `reconciler.yaml`
while no daemon runs, and a daemon starts after it; then that stack's resources are deleted,
except the one whose `deletion_policy` is Retain, which stays in the cloud and leaves the state;
the other stack is untouched. A stack removed with prune off stays in the cloud.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.daemon.gitops_world import notes_on
from tests.daemon.http_cloud_world import HttpCloudWorld, http_cloud_world, repository_config

KEEP = """heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: keep-net}
"""

GONE = """heat_template_version: 2018-08-31
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: gone-net}
  kept:
    type: OS::Neutron::Net
    deletion_policy: Retain
    properties: {name: gone-kept-net}
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpCloudWorld]:
    with http_cloud_world(tmp_path, monkeypatch) as world:
        yield world


def given_two_stacks_converged_by_a_daemon_that_stopped(world: HttpCloudWorld, *, prune: bool = True) -> None:
    stacks = {"keep": "stacks/keep.yaml", "gone": "stacks/gone.yaml"}
    config = repository_config(stacks, prune=prune)
    world.commit({"reconciler.yaml": config, "stacks/keep.yaml": KEEP, "stacks/gone.yaml": GONE})
    world.start_daemon()
    world.follow()
    assert world.converge_until(
        lambda: all(world.report(name).status is StackStatus.CONVERGED for name in stacks)
    )
    world.stop_daemon()
    assert net_names(world) == ["gone-kept-net", "gone-net", "keep-net"]


def net_names(world: HttpCloudWorld) -> list[str]:
    """The networks the stacks made (the cloud's own `public` aside)."""
    return sorted(str(net["name"]) for net in world.live("networks") if net["name"] != "public")


def records_of(world: HttpCloudWorld, stack: str) -> int:
    return world.running().daemon.store.count_records(stack)


def test_a_daemon_started_after_the_removal_commit_prunes_the_stack(world: HttpCloudWorld) -> None:
    given_two_stacks_converged_by_a_daemon_that_stopped(world)
    removal = world.commit({"reconciler.yaml": repository_config({"keep": "stacks/keep.yaml"})}, "drop gone")

    world.start_daemon()
    world.follow()

    assert world.converge_until(lambda: net_names(world) == ["gone-kept-net", "keep-net"]), net_names(world)
    assert world.converge_until(lambda: records_of(world, "gone") == 0)
    assert world.report("keep").status is StackStatus.CONVERGED
    world.running().daemon.gitops.publish()
    note = notes_on(world.repo, removal)["gone"]
    assert note.status == "CONVERGED"
    assert any("deleted or kept by deletion policy" in reason for reason in note.failures)


def test_a_stack_removed_with_prune_off_is_left_in_the_cloud(world: HttpCloudWorld) -> None:
    given_two_stacks_converged_by_a_daemon_that_stopped(world, prune=False)
    config = repository_config({"keep": "stacks/keep.yaml"}, prune=False)
    world.commit({"reconciler.yaml": config}, "drop gone, prune off")

    world.start_daemon()
    world.follow()
    world.converge_until(lambda: False, seconds=1.0)
    world.follow()  # every pass compares again; it is noted once and left alone

    assert net_names(world) == ["gone-kept-net", "gone-net", "keep-net"]
    assert records_of(world, "gone") == 2
