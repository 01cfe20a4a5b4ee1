"""AWS::EC2::Instance against the simulated cloud over HTTP: a Nova server written the
CloudFormation way, as Heat serves it, made and observed with the server's own calls."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import IMAGE, given_a_network, marker

INSTANCE = "AWS::EC2::Instance"


def test_an_instance_boots_on_its_subnets_network_and_reads_back_the_aws_way(sim: CloudUnderTest) -> None:
    network = given_a_network(sim.provider)
    sim.provider.create("OS::Nova::KeyPair", {"name": "key"}, marker("key"))
    example = marker("wordpress")
    hints = [{"Key": "rack", "Value": "a"}, {"Key": "rack", "Value": "b"}]
    properties = {"ImageId": IMAGE, "InstanceType": "m1.small", "KeyName": "key",
                  "SubnetId": network.subnet.physical_id, "UserData": "#!/bin/sh\necho hi\n",
                  "Tags": [{"Key": "role", "Value": "web"}], "NovaSchedulerHints": hints}  # fmt: skip

    created = sim.provider.create(INSTANCE, properties, example)
    sim.clock.advance(60)
    seen = sim.provider.observe(INSTANCE, [created.physical_id])[created.physical_id]
    server = sim.cloud.get("servers", created.physical_id)

    assert created.type == INSTANCE and created.status is LiveStatus.IN_PROGRESS
    assert seen.status is LiveStatus.READY and seen.marker == example
    assert seen.properties["InstanceType"] == "m1.small" and seen.properties["KeyName"] == "key"
    assert {"Key": "role", "Value": "web"} in seen.properties["Tags"]
    assert seen.attributes["PrivateIp"] == seen.attributes["PublicIp"] != "0.0.0.0"
    assert list(server["addresses"]) == ["private"]
    assert sim.provider.find_by_marker(INSTANCE, example) is not None
    assert undocumented_requests(sim) == []


def test_an_instance_resizes_in_place_when_its_instance_type_changes(sim: CloudUnderTest) -> None:
    properties = {"ImageId": IMAGE, "InstanceType": "m1.small"}
    created = sim.provider.create(INSTANCE, properties, marker("web"))
    sim.clock.advance(60)

    sim.provider.update(
        INSTANCE,
        created.physical_id,
        {**properties, "InstanceType": "m1.medium"},
        frozenset({"InstanceType"}),
    )
    sim.clock.advance(60)
    seen = sim.provider.observe(INSTANCE, [created.physical_id])[created.physical_id]

    assert seen.properties["InstanceType"] == "m1.medium"


def test_volumes_to_attach_are_refused_with_the_reason(sim: CloudUnderTest) -> None:
    properties = {
        "ImageId": IMAGE,
        "InstanceType": "m1.small",
        "Volumes": [{"Device": "/dev/vdb", "VolumeId": "v"}],
    }

    with pytest.raises(Permanent, match="VolumeAttachment"):
        sim.provider.create(INSTANCE, properties, marker("web"))
