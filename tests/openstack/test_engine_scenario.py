"""Scenario: the engine converges a stack of every OpenStack type through this provider, over HTTP.

Given a git repository holding one template and a simulated cloud reached through clouds.yaml;
when the engine converges it, then the cloud holds every resource and the outputs are right; when
a server vanishes behind the engine's back, then the next passes recreate it; when the template
changes a server's name, then it is updated in place; when resources leave the template, then
they are pruned.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import DesiredGeneration, Engine, EngineSettings, Policy, SoleWorkerLeases, StackStatus
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from state.store import Store, open_store
from tests.engine.world import scenario_repo
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest, StartCloud
from timekeeping.testing import SteppedClock

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  server_name: {type: string, default: web}
  with_storage: {type: boolean, default: true}
conditions:
  storage: {get_param: with_storage}
resources:
  key:
    type: OS::Nova::KeyPair
    properties: {name: app-key}
  group:
    type: OS::Nova::ServerGroup
    properties: {policies: [anti-affinity]}
  net:
    type: OS::Neutron::Net
    properties: {name: app-net}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
  router:
    type: OS::Neutron::Router
    properties: {external_gateway_info: {network: public}}
  interface:
    type: OS::Neutron::RouterInterface
    properties: {router: {get_resource: router}, subnet: {get_resource: subnet}}
  web_sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules: [{protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 0.0.0.0/0}]
  icmp:
    type: OS::Neutron::SecurityGroupRule
    properties: {security_group: {get_resource: web_sg}, protocol: icmp}
  port:
    type: OS::Neutron::Port
    properties:
      network: {get_resource: net}
      fixed_ips: [{subnet: {get_resource: subnet}}]
      security_groups: [{get_resource: web_sg}]
  server:
    type: OS::Nova::Server
    properties:
      name: {get_param: server_name}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      key_name: {get_resource: key}
      networks: [{port: {get_resource: port}}]
      scheduler_hints: {group: {get_resource: group}}
  fip:
    type: OS::Neutron::FloatingIP
    depends_on: interface
    properties: {floating_network: public}
  fip_assoc:
    type: OS::Neutron::FloatingIPAssociation
    properties: {floatingip_id: {get_resource: fip}, port_id: {get_resource: port}}
  volume:
    type: OS::Cinder::Volume
    condition: storage
    properties: {size: 1}
  attachment:
    type: OS::Cinder::VolumeAttachment
    condition: storage
    properties: {instance_uuid: {get_resource: server}, volume_id: {get_resource: volume}}
outputs:
  address: {value: {get_attr: [server, first_address]}}
  floating: {value: {get_attr: [fip, floating_ip_address]}}
"""

SETTINGS = EngineSettings(pool_size=4, readiness_poll=1.0, call_deadline=60.0, ready_deadline=300.0)


class EngineOnOpenStack:
    """A git repository and an engine whose cloud is the OpenStack provider on the served cloud."""

    def __init__(self, root: Path, database_url: str, sim: CloudUnderTest, clock: SteppedClock) -> None:
        self.sim = sim
        self.clock = clock
        self.repo_dir = root / "repo"
        self.repo_dir.mkdir()
        self.repo = scenario_repo(self.repo_dir)
        self.store: Store = open_store(database_url, clock=clock)
        self.engine = self._engine()
        self.policy = Policy(CLOUD_NAME, True, True, 60.0)

    def _engine(self) -> Engine:
        leases = SoleWorkerLeases(self.store, "worker-a", self.clock)
        for shard in range(self.store.settings.shard_count):
            leases.want(shard)
        return Engine(
            self.store, CloudRoot(self.clock, sleeper=self.clock), self.clock, "worker-a",
            leases=leases, sleeper=self.clock,
            random=random.Random(5), settings=SETTINGS,
        )  # fmt: skip

    def restart(self) -> None:
        """The engine made anew on the same database, as after a daemon restart."""
        self.engine.close()
        self.engine = self._engine()

    def commit(self, template: str, **files: str) -> None:
        """`template` as stack.yaml, and `files` (name -> text) beside it."""
        (self.repo_dir / "stack.yaml").write_text(textwrap.dedent(template).lstrip(), encoding="utf-8")
        for name, text in files.items():
            (self.repo_dir / name).write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        self.repo.git.add(A=True)
        self.repo.index.commit("change")

    def converge(self, parameters: dict[str, Any] | None = None) -> Any:
        definition = load_stack(DirectorySource(self.repo_dir), "stack.yaml", parameters=parameters or {})
        self.engine.submit("app", DesiredGeneration(self.repo.head.commit.hexsha, self.policy, definition))
        return self.engine.converge(["app"], self.clock.now() + 3_600)["app"]

    def pass_time(self, seconds: float) -> Any:
        until = self.clock.now() + seconds
        while self.clock.now() < until:
            self.engine.step()
            self.clock.sleep(min(1.0, until - self.clock.now()))
        return self.engine.converge(["app"], self.clock.now() + 3_600)["app"]

    def live(self, collection: str) -> list[dict[str, Any]]:
        self.sim.cloud.count(collection)
        return [dict(item) for item in self.sim.cloud.world.inventory(collection)]

    def close(self) -> None:
        self.engine.close()
        self.store.close()


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str, start_cloud: StartCloud) -> Iterator[EngineOnOpenStack]:
    clock = SteppedClock()
    settings = CloudSettings(time_to_active=5.0)
    world = EngineOnOpenStack(tmp_path, sqlite_url, start_cloud(settings=settings, clock=clock), clock)
    yield world
    world.close()


def test_a_stack_of_every_type_converges_heals_updates_and_prunes(world: EngineOnOpenStack) -> None:
    world.commit(TEMPLATE)

    report = world.converge()

    assert report.status is StackStatus.CONVERGED, report.failures
    servers = world.live("servers")
    assert [server["name"] for server in servers] == ["web"]
    outputs = world.store.read_outputs("app")
    assert str(outputs["address"]).startswith("10.0.0.")
    assert str(outputs["floating"]).startswith("172.24.4.")
    assert [volume["status"] for volume in world.live("volumes")] == ["in-use"]

    # drift: the server vanishes behind the engine's back and is made again
    world.sim.cloud.vanish("servers", servers[0]["id"])
    report = world.pass_time(120)
    assert report.status is StackStatus.CONVERGED, report.failures
    assert len(world.live("servers")) == 1 and world.live("servers")[0]["id"] != servers[0]["id"]

    # update in place: a new name keeps the server
    server_id = world.live("servers")[0]["id"]
    report = world.converge({"server_name": "web-2"})
    assert report.status is StackStatus.CONVERGED, report.failures
    assert [(server["id"], server["name"]) for server in world.live("servers")] == [(server_id, "web-2")]

    # prune: the volume and its attachment leave the template and the cloud
    report = world.converge({"server_name": "web-2", "with_storage": False})
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.live("volumes") == []


KEPT_VOLUMES = """
heat_template_version: 2018-08-31
parameters:
  with_storage: {type: boolean, default: true}
conditions:
  storage: {get_param: with_storage}
resources:
  archive:
    type: OS::Cinder::Volume
    condition: storage
    deletion_policy: Snapshot
    properties: {name: archive, size: 2}
  keep:
    type: OS::Cinder::Volume
    condition: storage
    deletion_policy: Retain
    properties: {name: keep, size: 1}
  net:
    type: OS::Neutron::Net
    properties: {name: app-net}
"""


def test_deletion_policies_keep_a_backup_and_a_retained_volume(world: EngineOnOpenStack) -> None:
    world.commit(KEPT_VOLUMES)
    assert world.converge().status is StackStatus.CONVERGED
    volumes = {volume["name"]: volume["id"] for volume in world.live("volumes")}

    report = world.converge({"with_storage": False})

    assert report.status is StackStatus.CONVERGED, report.failures
    assert [(volume["name"], volume["id"]) for volume in world.live("volumes")] == [("keep", volumes["keep"])]
    (backup,) = world.live("backups")
    assert (backup["volume_id"], backup["status"]) == (volumes["archive"], "available")
    assert sorted(report.kept) == [
        f"archive ({volumes['archive']}): snapshot {backup['id']} made before it was deleted",
        f"keep ({volumes['keep']}): retained: left in the cloud, no longer managed",
    ]


GUARDED = """
heat_template_version: 2018-08-31
resources:
  web_sg:
    type: OS::Neutron::SecurityGroup
    properties:
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 0.0.0.0/0}
        - {protocol: tcp, port_range_min: 443, port_range_max: 443, remote_ip_prefix: 0.0.0.0/0}
  icmp:
    type: OS::Neutron::SecurityGroupRule
    properties: {security_group: {get_resource: web_sg}, protocol: icmp}
"""


def test_a_group_rule_deleted_out_of_band_is_restored_and_other_rules_are_left_alone(
    world: EngineOnOpenStack,
) -> None:
    world.commit(GUARDED)
    assert world.converge().status is StackStatus.CONVERGED

    def ingress() -> list[str]:
        rules = world.live("security_group_rules")
        return sorted(str(rule["protocol"]) + str(rule.get("port_range_min")) for rule in rules
                      if rule["direction"] == "ingress")  # fmt: skip

    assert ingress() == ["icmpNone", "tcp22", "tcp443"]
    (ssh,) = [rule for rule in world.live("security_group_rules") if rule.get("port_range_min") == 22]
    world.sim.cloud.delete("security_group_rules", ssh["id"])

    report = world.pass_time(120)

    assert report.status is StackStatus.CONVERGED, report.failures
    assert ingress() == ["icmpNone", "tcp22", "tcp443"]
    steady = world.pass_time(240)
    assert steady.counts.updated == report.counts.updated and ingress() == ["icmpNone", "tcp22", "tcp443"]
