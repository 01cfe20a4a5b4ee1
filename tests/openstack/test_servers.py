"""OS::Nova::Server through the real openstacksdk against the simulated cloud over HTTP."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker

SERVER = "OS::Nova::Server"


def test_a_server_is_one_request_and_its_completion_is_seen_in_the_list(sim: CloudUnderTest) -> None:
    given = given_a_network(sim.provider)
    sim.log.clear()

    web = marker("web")
    created = sim.provider.create(
        SERVER,
        {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}], "metadata": {"role": "web"}},
        web,
    )

    assert created.status is LiveStatus.IN_PROGRESS
    assert sim.log.count("POST") == 1 and sim.log.count("POST", "/servers") == 1
    sim.clock.advance(60)
    seen = sim.provider.observe(SERVER, [created.physical_id])[created.physical_id]
    assert seen.status is LiveStatus.READY
    assert seen.marker == web
    assert seen.properties["metadata"] == {"role": "web"}
    assert seen.attributes["first_address"].startswith("10.0.0.")
    assert seen.attributes["networks"]["private"] == [seen.attributes["first_address"]]
    assert seen.attributes["networks"][given.net.physical_id] == [seen.attributes["first_address"]]
    assert "private" in seen.attributes["addresses"]


def test_many_building_servers_are_seen_active_from_one_list_page(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    ids = [
        sim.provider.create(
            SERVER,
            {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]},
            marker(f"node{index}"),
        ).physical_id
        for index in range(25)
    ]
    building = sim.provider.observe(SERVER, ids)
    assert {live.status for live in building.values()} == {LiveStatus.IN_PROGRESS}
    sim.log.clear()

    sim.clock.advance(60)
    active = sim.provider.observe(SERVER, ids)

    assert {live.status for live in active.values()} == {LiveStatus.READY}
    assert sim.log.count("GET", "/servers/detail") == 1
    assert sim.log.count() == 1


def test_find_by_marker_adopts_the_server_a_crashed_worker_created(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    web = marker("web")
    created = sim.provider.create(
        SERVER, {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}, web
    )
    sim.provider.create(
        SERVER, {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}, marker("db")
    )

    found = sim.provider.find_by_marker(SERVER, web)

    assert found is not None and found.physical_id == created.physical_id
    assert sim.provider.find_by_marker(SERVER, marker("never-created")) is None


def test_long_stack_and_resource_names_still_fit_nova_tags(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    long = marker("a_resource_named_at_length_for_a_group_member", stack="production-frontend-stack")
    created = sim.provider.create(
        SERVER, {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}, long
    )

    found = sim.provider.find_by_marker(SERVER, long)

    assert found is not None and found.physical_id == created.physical_id and found.marker == long


def test_name_metadata_and_tags_change_in_place_keeping_the_marker(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    web = marker("web")
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}], "tags": ["a"]}
    created = sim.provider.create(SERVER, properties, web)
    sim.clock.advance(60)

    changed = {**properties, "name": "web-1", "metadata": {"tier": "front"}, "tags": ["b", "c"]}
    updated = sim.provider.update(
        SERVER, created.physical_id, changed, frozenset({"name", "metadata", "tags"})
    )

    assert updated.properties["name"] == "web-1"
    assert updated.properties["metadata"] == {"tier": "front"}
    assert updated.properties["tags"] == ["b", "c"]
    assert updated.marker == web
    found = sim.provider.find_by_marker(SERVER, web)
    assert found is not None and found.physical_id == created.physical_id


def test_a_new_flavor_resizes_and_the_observe_pass_confirms_it(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}
    created = sim.provider.create(SERVER, properties, marker("web"))
    sim.clock.advance(60)

    resized = sim.provider.update(
        SERVER, created.physical_id, {**properties, "flavor": "m1.small"}, frozenset({"flavor"})
    )
    for _ in range(5):
        sim.clock.advance(60)
        seen = sim.provider.observe(SERVER, [created.physical_id])[created.physical_id]
        if seen.status is LiveStatus.READY:
            break

    assert resized.physical_id == created.physical_id
    assert seen.status is LiveStatus.READY
    assert seen.properties["flavor"] == "m1.small"


def test_a_new_image_rebuilds_in_place(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}
    created = sim.provider.create(SERVER, properties, marker("web"))
    sim.clock.advance(60)
    ubuntu = "ubuntu-22.04-server-cloudimg-amd64"

    sim.provider.update(SERVER, created.physical_id, {**properties, "image": ubuntu}, frozenset({"image"}))
    sim.clock.advance(60)

    seen = sim.provider.observe(SERVER, [created.physical_id])[created.physical_id]
    assert seen.properties["image"] == sim.provider.apis.names.id_of("image", ubuntu)


def test_replacing_is_a_new_server_then_the_old_one_deleted(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    old = sim.provider.create(
        SERVER,
        {
            "flavor": FLAVOR,
            "image": IMAGE,
            "networks": [{"network": "private"}],
            "user_data": "#!/bin/sh\necho 1",
        },
        marker("web"),
    )
    new = sim.provider.create(
        SERVER,
        {
            "flavor": FLAVOR,
            "image": IMAGE,
            "networks": [{"network": "private"}],
            "user_data": "#!/bin/sh\necho 2",
        },
        marker("web"),
    )
    sim.provider.delete(SERVER, old.physical_id)
    sim.clock.advance(60)

    seen = sim.provider.observe(SERVER, [old.physical_id, new.physical_id])

    assert set(seen) == {new.physical_id}


def test_a_deleted_server_is_missing_and_deleting_it_again_is_not_found(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    created = sim.provider.create(
        SERVER, {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}, marker("web")
    )
    sim.provider.delete(SERVER, created.physical_id)

    assert sim.provider.observe(SERVER, [created.physical_id]) == {}
    with pytest.raises(NotFound):
        sim.provider.delete(SERVER, created.physical_id)


def test_drift_a_server_in_error_or_gone_is_reported(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}
    broken = sim.provider.create(SERVER, properties, marker("broken"))
    gone = sim.provider.create(SERVER, properties, marker("gone"))
    sim.clock.advance(60)

    sim.cloud.set_status("servers", broken.physical_id, "ERROR")
    sim.cloud.vanish("servers", gone.physical_id)
    seen = sim.provider.observe(SERVER, [broken.physical_id, gone.physical_id])

    assert set(seen) == {broken.physical_id}
    assert seen[broken.physical_id].status is LiveStatus.FAILED


def test_boot_from_volume_with_ports_key_pair_and_hints(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    port = sim.provider.create("OS::Neutron::Port", {"network": "private"}, marker("web_port"))
    volume = sim.provider.create("OS::Cinder::Volume", {"size": 1, "image": IMAGE}, marker("root"))
    sim.provider.create("OS::Nova::KeyPair", {"name": "ops"}, marker("key"))
    group = sim.provider.create("OS::Nova::ServerGroup", {"policies": ["anti-affinity"]}, marker("group"))
    sim.clock.advance(60)

    created = sim.provider.create(
        SERVER,
        {
            "flavor": FLAVOR,
            "networks": [{"port": port.physical_id}],
            "block_device_mapping_v2": [{"volume_id": volume.physical_id, "boot_index": 0}],
            "key_name": "ops",
            "scheduler_hints": {"group": group.physical_id},
            "config_drive": True,
            "user_data": "#cloud-config\n",
        },
        marker("web"),
    )
    sim.clock.advance(60)

    seen = sim.provider.observe(SERVER, [created.physical_id])[created.physical_id]
    assert seen.status is LiveStatus.READY
    assert seen.properties["key_name"] == "ops"
    attached = sim.provider.observe("OS::Cinder::Volume", [volume.physical_id])[volume.physical_id]
    assert attached.attributes["attachments_list"][0]["server_id"] == created.physical_id


def test_new_security_groups_are_set_on_every_port_of_the_server(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    web = sim.provider.create("OS::Neutron::SecurityGroup", {"name": "web"}, marker("web_sg"))
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}
    created = sim.provider.create(SERVER, properties, marker("web"))
    sim.clock.advance(60)

    sim.provider.update(
        SERVER,
        created.physical_id,
        {**properties, "security_groups": ["web"]},
        frozenset({"security_groups"}),
    )

    ports = sim.provider.apis.network.get("/ports", {"device_id": created.physical_id})["ports"]
    assert ports and all(port["security_groups"] == [web.physical_id] for port in ports)


def test_a_legacy_block_device_mapping_boots_from_its_volume(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider)
    volume = sim.provider.create("OS::Cinder::Volume", {"size": 1, "image": IMAGE}, marker("root"))
    sim.clock.advance(60)

    created = sim.provider.create(
        SERVER,
        {
            "flavor": FLAVOR,
            "networks": [{"network": "private"}],
            "block_device_mapping": [{"device_name": "vda", "volume_id": volume.physical_id}],
        },
        marker("web"),
    )
    sim.clock.advance(60)

    attached = sim.provider.observe("OS::Cinder::Volume", [volume.physical_id])[volume.physical_id]
    assert attached.attributes["attachments_list"][0]["server_id"] == created.physical_id
