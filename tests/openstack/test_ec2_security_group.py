"""AWS::EC2::SecurityGroup against the simulated cloud over HTTP: a Neutron security group written
the CloudFormation way, as Heat serves it."""

from __future__ import annotations

from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import marker

EC2_GROUP = "AWS::EC2::SecurityGroup"
SSH = {"IpProtocol": "tcp", "FromPort": "22", "ToPort": "22", "CidrIp": "0.0.0.0/0"}


def test_ingress_rules_become_neutron_rules_and_read_back_the_aws_way(sim: CloudUnderTest) -> None:
    group = marker("ssh")
    created = sim.provider.create(
        EC2_GROUP, {"GroupDescription": "Enable SSH access", "SecurityGroupIngress": [SSH]}, group
    )

    neutron = sim.provider.connection.network.get_security_group(created.physical_id)
    ingress = [rule for rule in neutron.security_group_rules if rule["direction"] == "ingress"]
    seen = sim.provider.observe(EC2_GROUP, [created.physical_id])[created.physical_id]

    assert neutron.description == "Enable SSH access"
    assert [
        (r["protocol"], r["port_range_min"], r["port_range_max"], r["remote_ip_prefix"]) for r in ingress
    ] == [("tcp", 22, 22, "0.0.0.0/0")]
    assert seen.type == EC2_GROUP and seen.marker == group
    assert seen.properties["SecurityGroupIngress"] == [
        {"IpProtocol": "tcp", "FromPort": 22, "ToPort": 22, "CidrIp": "0.0.0.0/0"}
    ]
    assert len(seen.properties["SecurityGroupEgress"]) == 2  # Neutron's defaults stay without egress rules


def test_egress_rules_replace_the_defaults_and_rules_change_in_place(sim: CloudUnderTest) -> None:
    created = sim.provider.create(
        EC2_GROUP, {"GroupDescription": "web", "SecurityGroupIngress": [SSH]}, marker("web")
    )
    web = {"IpProtocol": "tcp", "FromPort": 443, "ToPort": 443, "CidrIp": "10.0.0.0/8"}
    out = {"IpProtocol": "-1", "CidrIp": "10.0.0.0/8"}

    sim.provider.update(
        EC2_GROUP,
        created.physical_id,
        {"GroupDescription": "web", "SecurityGroupIngress": [web], "SecurityGroupEgress": [out]},
        frozenset({"SecurityGroupIngress", "SecurityGroupEgress"}),
    )

    seen = sim.provider.observe(EC2_GROUP, [created.physical_id])[created.physical_id]
    assert seen.physical_id == created.physical_id
    assert seen.properties["SecurityGroupIngress"] == [web]
    assert seen.properties["SecurityGroupEgress"] == [out]
    sim.provider.delete(EC2_GROUP, created.physical_id)
    assert sim.provider.observe(EC2_GROUP, [created.physical_id]) == {}
    assert undocumented_requests(sim) == []
