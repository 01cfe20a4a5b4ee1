"""Scenario: a worker joins while another has creates out; rebalancing waits for them.

The first worker is over its share once the second is seen alive, and hands surplus shards back.
A shard whose creates are still out drains instead (no pass acts on it, its lease still renewed)
until they are back: the joiner never takes a stack whose creates may still land, so it never
creates them again.
"""

from __future__ import annotations

import random
from pathlib import Path

from providers.simulated.settings import CloudSettings, Latency
from reconciler.daemon.assembly import KeeperShards
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import Engine
from state import WorkerIdentity, shard_for
from state.shard_keeper import ShardKeeper
from tests.engine.templates import HEADER
from tests.engine.world import World

CREATE_LATENCY = 5.0
STACKS = [f"app{index}" for index in range(8)]  # spread over shards, some of them surplus
LONE_NETWORK = (
    HEADER
    + """
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: net}
"""
)


def keeper_engine(world: World, worker: str) -> tuple[ShardKeeper, Engine]:
    """A worker as the daemon assembles it: its lease keeper asks its engine which shards are busy."""
    engines: list[Engine] = []

    def busy() -> frozenset[int]:
        return engines[0].shards_with_calls_out()

    keeper = ShardKeeper(
        world.store, WorkerIdentity(worker, "host", len(worker)), clock=world.clock, busy=busy
    )
    engine = Engine(
        world.store,
        CloudRoot(world.clock, sim=world.sim),
        world.clock,
        worker,
        leases=KeeperShards(keeper),
        sleeper=world.clock,
        random=random.Random(3),
        settings=world.settings,
    )
    engines.append(engine)
    keeper.tick()
    return keeper, engine


def test_a_shard_with_creates_out_is_handed_to_a_joining_worker_only_once_they_are_back(
    tmp_path: Path, database_url: str
) -> None:
    slow_creates = CloudSettings(latency=Latency(per_operation={"create": CREATE_LATENCY}))
    world = World(tmp_path, database_url, cloud=slow_creates, calls_take_engine_time=True)
    world.engine.close()
    world.leases.release_all()
    first, world.engine = keeper_engine(world, "first")
    world.commit({"net.yaml": LONE_NETWORK})
    for stack in STACKS:
        world.submit(stack, "net.yaml")
    world.engine.step()  # every stack's create is sent, and takes a while
    busy = world.engine.shards_with_calls_out()
    assert busy == {shard_for(stack, world.store.settings.shard_count) for stack in STACKS}

    second = ShardKeeper(world.store, WorkerIdentity("second", "host", 2), clock=world.clock)
    second.tick()  # the second worker is seen alive: the first is over its share
    first.tick()
    second.tick()

    assert not busy & set(second.fences()), "no shard handed over while its creates are out"
    assert set(first.draining()) <= busy
    for _ in STACKS:  # the creates land, those queued behind the first ones too
        if not world.engine.shards_with_calls_out():
            break
        world.clock.sleep(CREATE_LATENCY)
        world.engine.wait_for_calls(timeout=0.5)
    assert world.engine.shards_with_calls_out() == frozenset()
    world.clock.sleep(world.store.settings.renew_seconds)
    first.tick()
    second.tick()
    assert first.draining() == ()
    world.close()
