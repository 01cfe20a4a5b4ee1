"""The HTTP face, driven by the real openstacksdk: what a provider built on the SDK will meet."""

from __future__ import annotations

import base64
import concurrent.futures
import json
import threading

import openstack
import pytest
import requests
from keystoneauth1.exceptions.connection import ConnectFailure
from openstack import exceptions

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.embedded import ServedCloud, serve_in_thread
from providers.simulated.settings import CloudSettings, Latency
from tests.simulated.sdk_connection import connect
from timekeeping.testing import SteppedClock

Connection = openstack.connection.Connection
IMAGE = "cirros-0.6.2-x86_64-disk"


def boot(connection: Connection, name: str = "web", **extra: object) -> str:
    image = connection.image.find_image(IMAGE, ignore_missing=False)
    flavor = connection.compute.find_flavor("m1.tiny", ignore_missing=False)
    server = connection.compute.create_server(name=name, image_id=image.id, flavor_id=flavor.id, **extra)
    return str(server.id)


def test_keystone_hands_out_a_token_and_a_catalog_pointing_back(
    served: ServedCloud, connection: Connection
) -> None:
    token = connection.auth_token
    assert token
    endpoints = {
        service: connection.endpoint_for(service)
        for service in ("compute", "network", "block-storage", "image")
    }
    assert all(str(url).startswith(served.url) for url in endpoints.values()), endpoints


def test_service_calls_without_a_token_are_unauthorized(served: ServedCloud) -> None:
    answer = requests.get(f"{served.url}/compute/v2.1/servers", timeout=5)
    assert answer.status_code == 401


def test_nova_negotiates_a_microversion_and_echoes_it(served: ServedCloud, connection: Connection) -> None:
    answer = connection.compute.get("/servers", microversion="2.79")
    assert answer.headers["OpenStack-API-Version"] == "compute 2.79"
    assert answer.headers["X-OpenStack-Nova-API-Version"] == "2.79"
    refused = connection.compute.get("/servers", microversion="2.999")
    assert refused.status_code == 406


def test_a_server_builds_then_is_active_and_is_deleted(connection: Connection, clock: SteppedClock) -> None:
    server_id = boot(connection)
    assert connection.compute.get_server(server_id).status == "BUILD"
    clock.advance(5.0)
    server = connection.compute.get_server(server_id)
    assert server.status == "ACTIVE"
    assert server.flavor.original_name == "m1.tiny"
    connection.compute.delete_server(server_id)
    assert connection.compute.find_server(server_id, ignore_missing=True) is None


def test_server_lists_filter_by_tags_and_name(connection: Connection) -> None:
    boot(connection, "a1", tags=["blue", "stack:x"])
    boot(connection, "a2", tags=["green"])
    boot(connection, "b1", tags=["blue"])
    assert sorted(s.name for s in connection.compute.servers(tags="blue")) == ["a1", "b1"]
    assert sorted(s.name for s in connection.compute.servers(tags="blue,stack:x")) == ["a1"]
    assert sorted(s.name for s in connection.compute.servers(any_tags="green,stack:x")) == ["a1", "a2"]
    assert sorted(s.name for s in connection.compute.servers(name="^a")) == ["a1", "a2"]


def test_server_tags_and_metadata_change_in_place(connection: Connection) -> None:
    server = connection.compute.get_server(boot(connection, metadata={"role": "web"}))
    connection.compute.set_server_metadata(server, tier="front")
    assert connection.compute.fetch_server_metadata(server).metadata == {"role": "web", "tier": "front"}
    server.add_tag(connection.compute, "marker")
    assert connection.compute.get_server(server.id).tags == ["marker"]


def test_lists_page_with_limit_marker_and_next_links(served: ServedCloud, connection: Connection) -> None:
    for index in range(25):
        connection.network.create_network(name=f"net-{index:02d}", tags=["paged"])
    page = connection.network.get("/networks", params={"limit": 10, "tags": "paged"}).json()
    assert len(page["networks"]) == 10
    assert page["networks_links"][0]["rel"] == "next"
    names = [network.name for network in connection.network.networks(tags="paged", limit=10)]
    assert names == [f"net-{index:02d}" for index in range(25)]


def test_neutron_tags_filter_all_and_any(connection: Connection) -> None:
    connection.network.create_network(name="one", tags=["a", "b"])
    connection.network.create_network(name="two", tags=["b"])
    assert [n.name for n in connection.network.networks(tags=["a", "b"])] == ["one"]
    assert [n.name for n in connection.network.networks(any_tags=["a", "b"])] == ["one", "two"]
    network = connection.network.find_network("two", ignore_missing=False)
    connection.network.set_tags(network, ["c"])
    assert connection.network.get_network(network.id).tags == ["c"]


def test_ports_routers_and_floating_ips(connection: Connection) -> None:
    public = connection.network.find_network("public", ignore_missing=False)
    network = connection.network.create_network(name="private")
    subnet = connection.network.create_subnet(network_id=network.id, cidr="10.9.0.0/24", ip_version=4)
    port = connection.network.create_port(network_id=network.id, name="p")
    assert port.fixed_ips[0]["ip_address"] == "10.9.0.2"
    router = connection.network.create_router(name="r", external_gateway_info={"network_id": public.id})
    connection.network.add_interface_to_router(router, subnet=subnet.id)
    interfaces = list(connection.network.ports(device_id=router.id))
    assert [fixed["ip_address"] for fixed in interfaces[0].fixed_ips] == ["10.9.0.1"]
    floating = connection.network.create_ip(floating_network_id=public.id, port_id=port.id)
    assert floating.router_id == router.id
    assert floating.fixed_ip_address == "10.9.0.2"
    with pytest.raises(exceptions.ConflictException, match="still has ports"):
        connection.network.delete_router(router)
    connection.network.remove_interface_from_router(router, subnet=subnet.id)
    connection.network.delete_router(router)


def test_security_groups_and_rules(connection: Connection) -> None:
    group = connection.network.create_security_group(name="web")
    assert len(group.security_group_rules) == 2  # the default egress rules
    rule = connection.network.create_security_group_rule(
        security_group_id=group.id, direction="ingress", protocol="tcp", port_range_min=80, port_range_max=80
    )
    with pytest.raises(exceptions.ConflictException, match="already exists"):
        connection.network.create_security_group_rule(
            security_group_id=group.id,
            direction="ingress",
            protocol="tcp",
            port_range_min=80,
            port_range_max=80,
        )
    connection.network.delete_security_group_rule(rule)
    assert len(connection.network.get_security_group(group.id).security_group_rules) == 2


def test_neutron_errors_are_parsed_with_their_message(connection: Connection) -> None:
    with pytest.raises(exceptions.NotFoundException):
        connection.network.get_network("00000000-0000-4000-8000-000000000000")
    with pytest.raises(exceptions.BadRequestException, match="not a valid IP subnet"):
        network = connection.network.create_network(name="n")
        connection.network.create_subnet(network_id=network.id, cidr="nonsense", ip_version=4)


def test_cinder_volumes_with_metadata_filter_extend_and_quota(
    connection: Connection, clock: SteppedClock
) -> None:
    volume = connection.block_storage.create_volume(size=1, name="data", metadata={"marker": "m-1"})
    assert volume.status == "creating"
    clock.advance(5.0)
    assert connection.block_storage.get_volume(volume.id).status == "available"
    # the SDK names Cinder's `metadata` filter `properties` and sends it as given: a JSON object
    found = list(connection.block_storage.volumes(properties=json.dumps({"marker": "m-1"})))
    assert [item.id for item in found] == [volume.id]
    connection.block_storage.extend_volume(volume.id, 4)
    assert connection.block_storage.get_volume(volume.id).size == 4
    with pytest.raises(exceptions.HttpException, match="gigabytes quota") as raised:
        connection.block_storage.create_volume(size=500)
    assert raised.value.status_code == 413
    connection.block_storage.delete_volume(volume.id)
    assert connection.block_storage.find_volume(volume.id, ignore_missing=True) is None


def test_volume_attachments_through_nova(connection: Connection, clock: SteppedClock) -> None:
    server_id = boot(connection)
    volume = connection.block_storage.create_volume(size=1)
    clock.advance(5.0)
    attachment = connection.compute.create_volume_attachment(server_id, volume=volume.id)
    assert attachment.device == "/dev/vdb"
    assert connection.block_storage.get_volume(volume.id).status == "in-use"
    assert [a.volume_id for a in connection.compute.volume_attachments(server_id)] == [volume.id]
    connection.compute.delete_volume_attachment(server_id, volume.id)
    assert connection.block_storage.get_volume(volume.id).status == "available"


def test_keypairs_and_server_groups(connection: Connection) -> None:
    keypair = connection.compute.create_keypair(name="deploy")
    assert keypair.private_key
    assert connection.compute.get_keypair("deploy").private_key is None
    with pytest.raises(exceptions.ConflictException, match="already exists"):
        connection.compute.create_keypair(name="deploy")
    group = connection.compute.create_server_group(name="spread", policy="anti-affinity")
    assert connection.compute.get_server_group(group.id).policy == "anti-affinity"
    connection.compute.delete_keypair("deploy")
    connection.compute.delete_server_group(group)


def test_glance_lists_and_finds_images(connection: Connection) -> None:
    assert {image.name for image in connection.image.images()} >= {IMAGE}
    assert connection.image.find_image(IMAGE, ignore_missing=False) is not None


def test_injected_faults_reach_the_client(served: ServedCloud, connection: Connection) -> None:
    admin = f"{served.url}/admin/faults/next"
    requests.post(admin, json={"fault": "500", "operation": "list", "collection": "networks"}, timeout=5)
    with pytest.raises(exceptions.HttpException) as raised:
        list(connection.network.networks())
    assert raised.value.status_code == 500
    requests.post(admin, json={"fault": "429", "operation": "list"}, timeout=5)
    rate_limited = connection.network.get("/networks")
    assert rate_limited.status_code == 429
    assert rate_limited.headers["Retry-After"] == "1"
    requests.post(admin, json={"fault": "timeout", "operation": "list"}, timeout=5)
    with pytest.raises(ConnectFailure):  # the connection closes with no answer, as a dropped request does
        list(connection.network.networks())
    assert [network.name for network in connection.network.networks()] == ["public"]


def test_out_of_band_changes_through_the_admin_api(served: ServedCloud, connection: Connection) -> None:
    server_id = boot(connection)
    requests.post(f"{served.url}/admin/servers/{server_id}/status", json={"status": "ERROR"}, timeout=5)
    assert connection.compute.get_server(server_id).status == "ERROR"
    requests.post(f"{served.url}/admin/servers/{server_id}/vanish", timeout=5)
    assert connection.compute.find_server(server_id, ignore_missing=True) is None
    stats = requests.get(f"{served.url}/admin/stats", timeout=5).json()
    assert stats["counts"]["servers"] == 0


def test_nova_pages_newest_first_and_refuses_an_unknown_marker(connection: Connection) -> None:
    for index in range(12):
        boot(connection, f"s{index:02d}")
    names = [server.name for server in connection.compute.servers(limit=5)]
    assert names == [f"s{index:02d}" for index in reversed(range(12))]
    unknown = connection.compute.get("/servers/detail", params={"marker": "no-such-server"})
    assert unknown.status_code == 400
    assert "marker [no-such-server] not found" in unknown.text


def test_over_the_concurrency_limit_the_face_answers_429_with_retry_after() -> None:
    """Given a cloud limited to one call in flight, a second concurrent call is refused, not queued."""
    entered, release = threading.Event(), threading.Event()

    def held_sleep(_: float) -> None:
        entered.set()
        release.wait(10)

    settings = CloudSettings(latency=Latency(1.0), max_concurrent=1, reject_over_limit=True, retry_after=2.0)
    with serve_in_thread(SimulatedCloud(settings, sleep=held_sleep)) as served:
        connection = connect(served)
        first = threading.Thread(target=lambda: list(connection.network.networks()))
        first.start()
        assert entered.wait(10)
        second = connect(served).network.get("/networks")
        release.set()
        first.join()
    assert second.status_code == 429
    assert second.headers["Retry-After"] == "2"
    assert "Over the limit of 1 concurrent calls" in second.text


def test_concurrent_clients_each_get_their_own_answer(served: ServedCloud) -> None:
    """Twenty threads creating at once, over keep-alive connections: twenty networks, none lost."""
    token = str(connect(served).auth_token)
    url = f"{served.url}/networking/v2.0/networks"

    def create(index: int) -> int:
        with requests.Session() as session:
            answer = session.post(
                url, json={"network": {"name": f"c{index}"}}, headers={"X-Auth-Token": token}
            )
            return answer.status_code

    with concurrent.futures.ThreadPoolExecutor(max_workers=20) as pool:
        statuses = list(pool.map(create, range(20)))
    assert statuses == [201] * 20
    assert served.cloud.count("networks") == 21  # and the seeded public network


def test_a_server_booted_without_networks_gets_the_projects_only_network(connection: Connection) -> None:
    network = connection.network.create_network(name="only")
    connection.network.create_subnet(network_id=network.id, cidr="10.8.0.0/24", ip_version=4)
    server_id = boot(connection)
    assert [port.network_id for port in connection.network.ports(device_id=server_id)] == [network.id]


def test_interfaces_attach_and_detach_and_a_password_change(connection: Connection) -> None:
    network = connection.network.create_network(name="extra")
    connection.network.create_subnet(network_id=network.id, cidr="10.7.0.0/24", ip_version=4)
    server_id = boot(connection, networks="none")
    interface = connection.compute.create_server_interface(server_id, net_id=network.id)
    assert interface.fixed_ips[0]["ip_address"] == "10.7.0.2"
    assert [i.port_id for i in connection.compute.server_interfaces(server_id)] == [interface.port_id]
    assert connection.compute.get_server(server_id).addresses["extra"][0]["addr"] == "10.7.0.2"
    connection.compute.delete_server_interface(interface.port_id, server=server_id)
    assert list(connection.compute.server_interfaces(server_id)) == []
    assert connection.network.find_port(interface.port_id, ignore_missing=True) is None  # Nova made it
    connection.compute.change_server_password(server_id, "new-password")


def test_a_volume_is_retyped_to_a_type_the_cloud_holds(connection: Connection, clock: SteppedClock) -> None:
    volume = connection.block_storage.create_volume(size=1)
    clock.advance(5.0)
    with pytest.raises(exceptions.NotFoundException, match="Volume type with name fast could not be found"):
        connection.block_storage.retype_volume(volume.id, "fast")
    connection.block_storage.create_type(name="fast")
    connection.block_storage.retype_volume(volume.id, "fast")
    assert connection.block_storage.get_volume(volume.id).volume_type == "fast"


def test_nova_shows_user_data_from_microversion_2_3_as_it_was_given(connection: Connection) -> None:
    given = base64.b64encode(b"#!/bin/sh\necho hi").decode()
    server_id = boot(connection, user_data=given)
    shown = connection.compute.get(f"/servers/{server_id}", microversion="2.3").json()["server"]
    assert shown["OS-EXT-SRV-ATTR:user_data"] == given
    older = connection.compute.get(f"/servers/{server_id}", microversion="2.1").json()["server"]
    assert "OS-EXT-SRV-ATTR:user_data" not in older
