"""Scenario: a security group's rules are observed, and one deleted out of band is put back."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0
TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Neutron::SecurityGroup
    properties:
      name: web
      rules:
        - {protocol: tcp, port_range_min: 22, port_range_max: 22, remote_ip_prefix: 0.0.0.0/0}
        - {protocol: tcp, port_range_min: 443, port_range_max: 443, remote_ip_prefix: 0.0.0.0/0}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[World]:
    world = World(tmp_path, database_url, observe_interval=OBSERVE_INTERVAL)
    yield world
    world.close()


def ingress_ports(world: World) -> list[int]:
    return sorted(
        int(str(rule["port_range_min"]))
        for rule in world.live("security_group_rules")
        if rule["direction"] == "ingress" and rule.get("port_range_min") is not None
    )


def test_a_rule_deleted_out_of_band_is_restored(world: World) -> None:
    world.commit({"stack.yaml": TEMPLATE})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    assert ingress_ports(world) == [22, 443]
    (ssh,) = [rule for rule in world.live("security_group_rules") if rule.get("port_range_min") == 22]
    world.cloud.delete("security_group_rules", str(ssh["id"]))
    assert ingress_ports(world) == [443]

    report = world.pass_time(OBSERVE_INTERVAL + 1, "app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert ingress_ports(world) == [22, 443]


def test_rules_in_sync_are_left_alone_pass_after_pass(world: World) -> None:
    world.commit({"stack.yaml": TEMPLATE})
    world.submit("app", "stack.yaml")
    world.converge("app")
    before = sorted(str(rule["id"]) for rule in world.live("security_group_rules"))

    report = world.pass_time(3 * OBSERVE_INTERVAL, "app")["app"]

    assert report.counts.updated == 0  # counted since the generation began: no repair happened
    assert sorted(str(rule["id"]) for rule in world.live("security_group_rules")) == before


WITH_RULE_RESOURCES = (
    TEMPLATE
    + """
  icmp:
    type: OS::Neutron::SecurityGroupRule
    properties: {security_group: {get_resource: web}, protocol: icmp}
  dns:
    type: OS::Neutron::SecurityGroupRule
    properties:
      security_group: {get_resource: web}
      protocol: udp
      port_range_min: 53
      port_range_max: 53
      description: dns for the resolvers
"""
)


def test_the_group_and_rule_resources_in_it_leave_each_other_alone(world: World) -> None:
    world.commit({"stack.yaml": WITH_RULE_RESOURCES})
    world.submit("app", "stack.yaml")
    first = world.converge("app")["app"]
    assert first.status is StackStatus.CONVERGED, first.failures
    rules = sorted(str(rule["id"]) for rule in world.live("security_group_rules"))

    report = world.pass_time(3 * OBSERVE_INTERVAL, "app")["app"]

    assert (report.counts.created, report.counts.updated) == (first.counts.created, 0)
    assert sorted(str(rule["id"]) for rule in world.live("security_group_rules")) == rules
