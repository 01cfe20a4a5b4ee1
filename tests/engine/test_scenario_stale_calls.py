"""Scenario: a worker stopped past its lease while calls it decided still wait in its call pool.

Calls already running when the lease is lost finish (nothing can recall them); the ones still
queued behind them are dropped when their turn comes, never sent late, and the stack's new owner
decides them again: each resource ends up once in the cloud.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings, Latency
from reconciler.engine import StackStatus
from tests.engine.templates import HEADER
from tests.engine.world import TEST_SETTINGS, World

CREATE_LATENCY = 5.0
NETWORKS = 12  # more than the pool sends at once: some wait in the engine, some queue in the pool


def networks(count: int) -> str:
    body = [HEADER, "resources:"]
    body.extend(
        f"""
  net{index}:
    type: OS::Neutron::Net
    properties: {{name: net{index}}}
"""
        for index in range(count)
    )
    return "".join(body)


def made(world: World) -> list[str]:
    """The names of the networks the stack made (the cloud has others of its own)."""
    return [
        str(network["name"]) for network in world.live("networks") if str(network["name"]).startswith("net")
    ]


def run_for(world: World, seconds: float) -> None:
    """Step the engine a second of engine time at a time; slow calls land when the clock passes them."""
    for _ in range(int(seconds)):
        world.engine.step()
        world.clock.sleep(1.0)


def test_calls_queued_when_the_lease_is_lost_are_never_sent_and_the_new_owner_makes_them_once(
    tmp_path: Path, database_url: str
) -> None:
    slow_creates = CloudSettings(latency=Latency(per_operation={"create": CREATE_LATENCY}))
    world = World(tmp_path, database_url, cloud=slow_creates, calls_take_engine_time=True)
    world.commit({"nets.yaml": networks(NETWORKS)})
    world.submit("app", "nets.yaml")
    world.engine.step()  # every thread of the pool is busy with a create; more creates queue behind

    world.clock.sleep(world.store.settings.lease_seconds + 1)  # stopped past its lease meanwhile
    world.engine.wait_for_calls()

    assert len(made(world)) == TEST_SETTINGS.pool_size  # only the calls already running

    world.clock.sleep(1.0)
    world.engine = world.start_worker("worker-b")
    world.submit("app", "nets.yaml")
    run_for(world, 10 * CREATE_LATENCY)
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(made(world)) == sorted(f"net{index}" for index in range(NETWORKS))
    world.close()


def test_every_call_dropped_for_a_lost_lease_is_logged_with_its_resource_stack_and_shard(
    tmp_path: Path, database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    slow_creates = CloudSettings(latency=Latency(per_operation={"create": CREATE_LATENCY}))
    world = World(tmp_path, database_url, cloud=slow_creates, calls_take_engine_time=True)
    world.commit({"nets.yaml": networks(NETWORKS)})
    world.submit("app", "nets.yaml")
    world.engine.step()
    world.clock.sleep(world.store.settings.lease_seconds + 1)
    world.engine.wait_for_calls()
    world.engine.step()  # the calls that came back are handled

    messages = [record.getMessage() for record in caplog.records]
    dropped = [message for message in messages if message.startswith("stale call dropped")]
    shard = world.store.ensure_stack("app").shard
    assert 0 < len(dropped) <= NETWORKS - TEST_SETTINGS.pool_size
    for line in dropped:
        assert line.startswith("stale call dropped: create of net")
        assert f"(OS::Neutron::Net) in stack app, shard {shard}: its lease was lost" in line
    world.close()
