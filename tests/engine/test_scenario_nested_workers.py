"""Scenario: nested stacks sharded independently, converged by the worker holding each one's shard.

Two workers share one store and one cloud, as daemons on two hosts do; each has read the root
stack's commit (every daemon loads every stack), and each acts only on the shards it holds. The
root's coordinator records its nested stacks' generations; the worker holding a child's shard
rebuilds the child's definition and converges it; the parent reads the child's results from the
store. Then the holder of the children dies and the other worker takes their shards over.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path

from providers.simulated.settings import CloudSettings, Latency
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import DesiredGeneration, Engine, SoleWorkerLeases, StackReport, StackStatus
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from state import shard_for
from tests.engine.world import World

NODE = """
heat_template_version: 2018-08-31
parameters:
  index: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: network}}
  server:
    type: OS::Nova::Server
    properties:
      name: {list_join: ["-", [node, {get_param: index}]]}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      networks: [{port: {get_resource: port}}]
outputs:
  server_id: {value: {get_resource: server}}
  name: {value: {get_attr: [server, name]}}
"""

TREE = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 3}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: tree-net}
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: node.yaml
        properties: {index: "%index%", network: {get_resource: net}}
outputs:
  names: {value: {get_attr: [nodes, name]}}
  servers: {value: {get_attr: [nodes, server_id]}}
"""

NODE_WITH_NETWORK = NODE.replace(
    "  index: {type: string}\n", "  index: {type: string}\n  network: {type: string}\n"
)


class Workers:
    """Workers on the world's store and cloud, each holding the shards it is given."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.engines: dict[str, Engine] = {}
        self.leases: dict[str, SoleWorkerLeases] = {}

    def start(self, worker: str, shards: set[int]) -> Engine:
        leases = SoleWorkerLeases(self.world.store, worker, self.world.clock)
        for shard in sorted(shards):
            leases.want(shard)
        engine = Engine(
            self.world.store,
            CloudRoot(self.world.clock, sim=self.world.sim),
            self.world.clock,
            worker,
            leases=leases,
            sleeper=self.world.clock,
            random=random.Random(len(self.engines)),
            settings=self.world.settings,
        )
        self.engines[worker], self.leases[worker] = engine, leases
        return engine

    def submit(self, stack: str, template: str, parameters: dict[str, int] | None = None) -> None:
        """Every worker reads the commit, as every daemon does; only the shard holder acts on it."""
        commit = self.world.repo.head.commit.hexsha
        for engine in self.engines.values():
            definition = load_stack(
                DirectorySource(self.world.repo_dir), template, parameters=parameters or {}
            )
            engine.submit(stack, DesiredGeneration(commit, self.world.policy, definition))

    def converge(self, holder: str, stack: str, *, passes: int = 400) -> StackReport:
        """Step every worker, a second of engine time a pass, until `holder` reports `stack` settled."""
        for _ in range(passes):
            for engine in self.engines.values():
                engine.step()
            for engine in self.engines.values():
                engine.wait_for_calls()
            report = self.engines[holder].report(stack)
            if report.settled and not any(engine.step().busy for engine in self.engines.values()):
                return report
            self.world.clock.sleep(1.0)
        raise AssertionError(f"{stack} did not settle: {self.engines[holder].report(stack)}")

    def pass_time(self, seconds: float) -> None:
        """Let `seconds` of engine time go by, every worker stepping (and renewing) each second."""
        until = self.world.clock.now() + seconds
        while self.world.clock.now() < until:
            for engine in self.engines.values():
                engine.step()
            for engine in self.engines.values():
                engine.wait_for_calls()
            self.world.clock.sleep(1.0)

    def close(self) -> None:
        for engine in self.engines.values():
            engine.close()


def _nested_stacks(count: int) -> list[str]:
    return ["tree/nodes", *(f"tree/nodes/{index}" for index in range(count))]


def test_nested_stacks_converge_on_the_workers_holding_their_shards(
    tmp_path: Path, database_url: str
) -> None:
    world = World(tmp_path, database_url)
    world.engine.close()
    world.leases.release_all()
    shard_count = world.store.settings.shard_count
    root_shard = shard_for("tree", shard_count)
    nested_shards = {shard_for(name, shard_count) for name in _nested_stacks(3)} - {root_shard}
    assert nested_shards, "the scenario needs nested stacks on shards other than the root's"
    workers = Workers(world)
    workers.start("root-holder", {root_shard})
    workers.start("child-holder", set(range(shard_count)) - {root_shard})
    world.commit({"tree.yaml": TREE, "node.yaml": NODE_WITH_NETWORK})

    # Given a root whose nested stacks hash to shards another worker holds: the tree converges.
    workers.submit("tree", "tree.yaml")
    report = workers.converge("root-holder", "tree")

    assert report.status is StackStatus.CONVERGED, report.failures
    servers = world.live("servers")
    assert sorted(server["name"] for server in servers) == ["node-0", "node-1", "node-2"]
    outputs = world.outputs("tree")
    assert outputs["names"] == ["node-0", "node-1", "node-2"]
    assert sorted(outputs["servers"]) == sorted(server["id"] for server in servers)
    root_holder, child_holder = workers.engines["root-holder"], workers.engines["child-holder"]
    for child in _nested_stacks(3):
        holder = root_holder if shard_for(child, shard_count) == root_shard else child_holder
        other = child_holder if holder is root_holder else root_holder
        assert holder.run_of(child) is not None, f"{child} converged by the worker holding its shard"
        assert other.run_of(child) is None, f"{child} not converged by the other worker"
        assert world.store.read_stack(child) is not None
        assert world.store.read_stack(child).status is StackStatus.CONVERGED  # type: ignore[union-attr]

    # When a server of a member is deleted behind the engines' backs, its holder recreates it
    # and the root's outputs follow.
    gone = next(server for server in servers if server["name"] == "node-1")
    world.cloud.vanish("servers", str(gone["id"]))
    workers.pass_time(world.policy.observe_interval + 10)
    workers.converge("root-holder", "tree")
    repaired = world.live("servers")
    assert sorted(server["name"] for server in repaired) == ["node-0", "node-1", "node-2"]
    assert sorted(world.outputs("tree")["servers"]) == sorted(server["id"] for server in repaired)

    # When the group shrinks, the members that left are deleted by whoever holds them.
    world.commit({"tree.yaml": TREE.replace("default: 3", "default: 1")})
    workers.submit("tree", "tree.yaml", {"count": 1})
    report = workers.converge("root-holder", "tree")

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [server["name"] for server in world.live("servers")] == ["node-0"]
    assert world.outputs("tree")["names"] == ["node-0"]
    assert world.records("tree/nodes/1") == {} and world.records("tree/nodes/2") == {}
    assert len(world.live("ports")) == 1

    # When the children's holder dies, the root's holder takes their shards over, rebuilds the
    # nested stacks from the store and carries on: nothing is duplicated.
    before = {server["id"] for server in world.live("servers")}
    del workers.engines["child-holder"]
    child_holder.close()
    workers.pass_time(world.store.settings.lease_seconds + 1)  # the dead worker renews nothing
    for shard in range(shard_count):
        workers.leases["root-holder"].want(shard)
    workers.pass_time(3)
    for child in _nested_stacks(1):  # rebuilt from the store, with no new commit to start from
        assert root_holder.run_of(child) is not None, child
        assert root_holder.report(child).status is StackStatus.CONVERGED
    world.commit({"node.yaml": NODE_WITH_NETWORK.replace("[node,", "[host,")})
    workers.submit("tree", "tree.yaml", {"count": 1})
    report = workers.converge("root-holder", "tree")

    assert report.status is StackStatus.CONVERGED, report.failures
    (server,) = world.live("servers")
    assert server["name"] == "host-0"
    assert server["id"] in before  # renamed in place, by the worker that took the shard over
    assert len(world.live("ports")) == 1
    assert world.outputs("tree") == {"names": ["host-0"], "servers": [server["id"]]}
    workers.close()
    world.store.close()


def test_a_commit_changing_only_a_group_member_template_updates_every_member(
    tmp_path: Path, sqlite_url: str
) -> None:
    """Given a group of template resources; when a commit changes only the member template; then
    every member's nested stack converges to it (the group's own properties did not change)."""
    world = World(tmp_path, sqlite_url)
    world.commit({"tree.yaml": TREE, "node.yaml": NODE_WITH_NETWORK})
    world.submit("tree", "tree.yaml", {"count": 2})
    assert world.converge("tree")["tree"].status is StackStatus.CONVERGED
    before = {server["id"] for server in world.live("servers")}

    world.commit({"node.yaml": NODE_WITH_NETWORK.replace("[node,", "[host,")})
    world.submit("tree", "tree.yaml", {"count": 2})
    report = world.converge("tree")["tree"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == ["host-0", "host-1"]
    assert {server["id"] for server in world.live("servers")} == before  # renamed in place
    assert world.outputs("tree")["names"] == ["host-0", "host-1"]
    world.close()


def test_a_nested_stack_handed_to_another_worker_mid_convergence_is_watched_there(
    tmp_path: Path, database_url: str
) -> None:
    """Given one worker converging a tree, its members still building; when the members' shards
    are handed to a worker that joined; then the root's worker reads the members' rows the new
    holder writes (not its own stale runs) and the tree converges, nothing made twice."""
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=20.0))
    world.engine.close()
    world.leases.release_all()
    shard_count = world.store.settings.shard_count
    root_shard = shard_for("tree", shard_count)
    handed = {shard_for(name, shard_count) for name in _nested_stacks(3)} - {root_shard}
    assert handed, "the scenario needs nested stacks on shards other than the root's"
    workers = Workers(world)
    first = workers.start("first", set(range(shard_count)))
    world.commit({"tree.yaml": TREE, "node.yaml": NODE_WITH_NETWORK})
    workers.submit("tree", "tree.yaml")
    for _ in range(5):  # the members' servers are created, and build for a while yet
        first.step()
        first.wait_for_calls()
        world.clock.sleep(1.0)
    assert len(world.live("servers")) == 3

    for shard in handed:
        workers.leases["first"].release(shard)
    workers.start("joined", handed)
    workers.submit("tree", "tree.yaml")
    report = workers.converge("first", "tree")

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == ["node-0", "node-1", "node-2"]
    assert len(world.live("ports")) == 3
    for child in _nested_stacks(3):
        if shard_for(child, shard_count) in handed:
            assert first.run_of(child) is None, f"{child} is watched, not converged, by the first worker"
    workers.close()
    world.store.close()


class LeasesSeenLate:
    """A worker's view of its leases that can stand still, as a daemon's does while it is stopped:
    woken, its engine passes once with the shards it held before its lease thread runs again."""

    def __init__(self, leases: SoleWorkerLeases) -> None:
        self._leases = leases
        self._frozen: Mapping[int, int] | None = None

    def freeze(self) -> None:
        self._frozen = dict(self._leases.held())

    def thaw(self) -> None:
        self._frozen = None

    def want(self, shard: int) -> None:
        self._leases.want(shard)

    def held(self) -> Mapping[int, int]:
        return self._leases.held() if self._frozen is None else self._frozen

    def holds(self, shard: int, epoch: int) -> bool:
        if self._frozen is not None:
            return self._frozen.get(shard) == epoch
        return self._leases.holds(shard, epoch)


def test_a_member_regrown_after_a_takeover_mid_shrink_is_not_removed_by_the_stale_retirement(
    tmp_path: Path, database_url: str
) -> None:
    """Given a group shrinking, its worker stopped past its lease mid-shrink; when another worker
    takes the group over and a commit grows it back, and then the stopped worker wakes; then its
    stale retirement records no removal after the regrowing commit's generation, and the tree
    converges with every member, nothing left over."""
    slow_deletes = CloudSettings(latency=Latency(per_operation={"delete": 5.0}))
    world = World(tmp_path, database_url, cloud=slow_deletes, calls_take_engine_time=True)
    world.engine.close()
    world.leases.release_all()
    shard_count = world.store.settings.shard_count
    workers = Workers(world)
    stopped = LeasesSeenLate(SoleWorkerLeases(world.store, "stopped", world.clock))
    for shard in range(shard_count):
        stopped.want(shard)
    workers.engines["stopped"] = Engine(
        world.store,
        CloudRoot(world.clock, sim=world.sim),
        world.clock,
        "stopped",
        leases=stopped,
        sleeper=world.clock,
        random=random.Random(3),
        settings=world.settings,
    )
    world.commit({"tree.yaml": TREE, "node.yaml": NODE_WITH_NETWORK})
    workers.submit("tree", "tree.yaml")
    assert workers.converge("stopped", "tree").status is StackStatus.CONVERGED

    # The group shrinks; its worker starts retiring members 1 and 2, then is stopped.
    world.commit({"tree.yaml": TREE.replace("default: 3", "default: 1")})
    workers.submit("tree", "tree.yaml", {"count": 1})
    workers.pass_time(2)
    stopped.freeze()
    stale = workers.engines.pop("stopped")

    # Another worker takes every shard once the lease expired, and the group grows back.
    world.clock.sleep(world.store.settings.lease_seconds + 1)
    successor = workers.start("successor", set(range(shard_count)))
    world.commit({"tree.yaml": TREE})
    workers.submit("tree", "tree.yaml", {"count": 3})
    workers.pass_time(3)
    regrown = {index: world.store.newest_generation(f"tree/nodes/{index}") for index in (1, 2)}

    # The stopped worker wakes: one pass on the shards it held before.
    stale.step()
    stale.wait_for_calls()
    stopped.thaw()
    stale.step()

    for index, generation in regrown.items():
        assert world.store.newest_generation(f"tree/nodes/{index}") == generation
    report = workers.converge("successor", "tree")
    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == ["node-0", "node-1", "node-2"]
    assert len(world.live("ports")) == 3
    assert world.outputs("tree")["names"] == ["node-0", "node-1", "node-2"]
    assert successor.report("tree/nodes/2").status is StackStatus.CONVERGED
    stale.close()
    workers.close()
    world.store.close()
