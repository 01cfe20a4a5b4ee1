"""OS::Neutron::QoSPolicy and its rules, and a network's and port's `qos_policy`, against the
simulated cloud over HTTP, through the openstacksdk client."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, ProviderError
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

POLICY = "OS::Neutron::QoSPolicy"
BANDWIDTH = "OS::Neutron::QoSBandwidthLimitRule"
DSCP = "OS::Neutron::QoSDscpMarkingRule"
MINIMUM = "OS::Neutron::QoSMinimumBandwidthRule"


def test_a_policy_carries_its_marker_and_shows_its_rules_to_the_sdk(sim: CloudUnderTest) -> None:
    policy_marker = marker("policy")
    policy = sim.provider.create(POLICY, {"name": "gold", "shared": False}, policy_marker)
    limit = sim.provider.create(BANDWIDTH, {"policy": "gold", "max_kbps": 1000}, marker("limit"))
    dscp = sim.provider.create(DSCP, {"policy": policy.physical_id, "dscp_mark": 26}, marker("dscp"))
    minimum = sim.provider.create(
        MINIMUM, {"policy": "gold", "min_kbps": 100, "direction": "egress"}, marker("minimum")
    )

    found = sim.provider.find_by_marker(POLICY, policy_marker)
    seen = sim.provider.observe(BANDWIDTH, [limit.physical_id, "gone"])
    sdk_view = sim.provider.connection.network.get_qos_policy(policy.physical_id)
    sdk_rule = sim.provider.connection.network.get_qos_bandwidth_limit_rule(
        limit.physical_id, policy.physical_id
    )

    assert found is not None and found.physical_id == policy.physical_id
    assert list(seen) == [limit.physical_id] and seen[limit.physical_id].status is LiveStatus.READY
    assert seen[limit.physical_id].properties == {
        "max_kbps": 1000,
        "max_burst_kbps": 0,
        "direction": "egress",
        "policy": policy.physical_id,
    }
    assert sorted(rule["type"] for rule in sdk_view.rules) == [
        "bandwidth_limit",
        "dscp_marking",
        "minimum_bandwidth",
    ]
    assert sdk_rule.max_kbps == 1000
    assert sim.provider.observe(DSCP, [dscp.physical_id])[dscp.physical_id].properties["dscp_mark"] == 26
    assert (
        sim.provider.observe(MINIMUM, [minimum.physical_id])[minimum.physical_id].properties["min_kbps"]
        == 100
    )


def test_rules_change_in_place_and_a_repeated_create_adopts_the_rule_there(sim: CloudUnderTest) -> None:
    policy = sim.provider.create(POLICY, {"name": "silver"}, marker("policy"))
    limit = sim.provider.create(BANDWIDTH, {"policy": "silver", "max_kbps": 1000}, marker("limit"))

    again = sim.provider.create(BANDWIDTH, {"policy": "silver", "max_kbps": 1000}, marker("limit"))
    updated = sim.provider.update(
        BANDWIDTH,
        limit.physical_id,
        {"policy": "silver", "max_kbps": 2000, "max_burst_kbps": 300},
        frozenset({"max_kbps", "max_burst_kbps"}),
    )

    assert again.physical_id == limit.physical_id
    assert updated.physical_id == limit.physical_id
    assert updated.properties["max_kbps"] == 2000 and updated.properties["max_burst_kbps"] == 300
    sdk_view = sim.provider.connection.network.get_qos_policy(policy.physical_id)
    assert [rule["max_kbps"] for rule in sdk_view.rules] == [2000]
    assert undocumented_requests(sim) == []


def test_networks_and_ports_use_a_policy_named_by_name_which_neutron_then_keeps(sim: CloudUnderTest) -> None:
    policy = sim.provider.create(POLICY, {"name": "bronze"}, marker("policy"))
    net = sim.provider.create("OS::Neutron::Net", {"name": "n", "qos_policy": "bronze"}, marker("net"))
    sim.provider.create("OS::Neutron::Subnet", {"network": "n", "cidr": "10.9.0.0/24"}, marker("subnet"))
    port = sim.provider.create("OS::Neutron::Port", {"network": "n", "qos_policy": "bronze"}, marker("port"))

    assert net.properties["qos_policy"] == policy.physical_id
    assert port.attributes["qos_policy_id"] == policy.physical_id
    with pytest.raises(ProviderError, match=f"QoS Policy {policy.physical_id} is used by"):
        sim.provider.delete(POLICY, policy.physical_id)
    with pytest.raises(ProviderError, match="no qos_policy named 'missing'"):
        sim.provider.create("OS::Neutron::Port", {"network": "n", "qos_policy": "missing"}, marker("p2"))

    sim.provider.update(
        "OS::Neutron::Port", port.physical_id, {"network": "n", "qos_policy": None}, frozenset({"qos_policy"})
    )
    sim.provider.update("OS::Neutron::Net", net.physical_id, {"qos_policy": None}, frozenset({"qos_policy"}))
    sim.provider.delete(POLICY, policy.physical_id)
    assert sim.provider.observe(POLICY, [policy.physical_id]) == {}
    assert undocumented_requests(sim) == []


def test_neutron_refuses_a_bad_rule_with_its_reason_and_deleting_a_policy_takes_its_rules(
    sim: CloudUnderTest,
) -> None:
    policy = sim.provider.create(POLICY, {"name": "p"}, marker("policy"))
    with pytest.raises(ProviderError, match="Invalid input for dscp_mark"):
        sim.provider.create(DSCP, {"policy": "p", "dscp_mark": 3}, marker("dscp"))
    limit = sim.provider.create(
        BANDWIDTH, {"policy": "p", "max_kbps": 10, "direction": "ingress"}, marker("l")
    )

    sim.provider.delete(BANDWIDTH, limit.physical_id)
    assert sim.provider.observe(BANDWIDTH, [limit.physical_id]) == {}
    again = sim.provider.create(BANDWIDTH, {"policy": "p", "max_kbps": 10}, marker("l2"))
    sim.provider.delete(POLICY, policy.physical_id)

    assert sim.provider.observe(BANDWIDTH, [again.physical_id]) == {}
    assert undocumented_requests(sim) == []
