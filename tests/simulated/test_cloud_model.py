"""The simulated cloud model: statuses over stepped time, indexes, faults, quotas, limits, persistence."""

from __future__ import annotations

import random
import threading
import uuid
from pathlib import Path

import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import (
    BadRequest,
    CallTimedOut,
    CloudError,
    Conflict,
    InternalError,
    ItemNotFound,
    OverQuota,
    TooManyRequests,
)
from providers.simulated.faults import CallFault, Faults
from providers.simulated.settings import CloudSettings, Latency
from timekeeping.testing import SteppedClock

IMAGE = "cirros-0.6.2-x86_64-disk"


def make_cloud(clock: SteppedClock | None = None, **settings: object) -> SimulatedCloud:
    clock = clock or SteppedClock()
    return SimulatedCloud(
        CloudSettings(**settings),  # type: ignore[arg-type]
        clock=clock.now,
        sleep=clock.sleep,
        random_source=random.Random(7),
    )


def image_id(cloud: SimulatedCloud) -> str:
    return str(cloud.list("images", name=IMAGE)[0]["id"])


def network_with_subnet(cloud: SimulatedCloud, name: str = "private") -> str:
    network = cloud.create("networks", {"name": name})
    cloud.create("subnets", {"network_id": network["id"], "cidr": "10.0.0.0/24"})
    return str(network["id"])


def server_request(cloud: SimulatedCloud, **extra: object) -> dict[str, object]:
    return {"name": "web", "flavorRef": "1", "imageRef": image_id(cloud), **extra}


def test_a_server_builds_then_is_active_once_its_time_has_come() -> None:
    clock = SteppedClock()
    cloud = make_cloud(clock, time_to_active=2.0)
    server = cloud.create("servers", server_request(cloud))
    assert server["status"] == "BUILD"
    clock.advance(1.9)
    assert cloud.get("servers", server["id"])["status"] == "BUILD"
    clock.advance(0.1)
    assert cloud.get("servers", server["id"])["status"] == "ACTIVE"


def test_ids_are_version_4_uuids_drawn_from_the_clouds_random_source() -> None:
    first, again = make_cloud(), make_cloud()  # the same seed: the same ids, in the same order
    ids = [first.create("networks", {"name": f"n{index}"})["id"] for index in range(50)]
    assert [again.create("networks", {"name": f"n{index}"})["id"] for index in range(50)] == ids
    assert len(set(ids)) == len(ids)
    for text in ids:
        parsed = uuid.UUID(text)
        assert str(parsed) == text
        assert (parsed.version, parsed.variant) == (4, uuid.RFC_4122)


def test_a_server_on_a_network_gets_a_port_and_an_address_that_go_with_it() -> None:
    cloud = make_cloud()
    network = network_with_subnet(cloud)
    server = cloud.create("servers", server_request(cloud, networks=[{"uuid": network}]))
    ports = cloud.list("ports", where={"device_id": server["id"]})
    assert [fixed["ip_address"] for fixed in ports[0]["fixed_ips"]] == ["10.0.0.2"]
    assert server["addresses"]["private"][0]["addr"] == "10.0.0.2"
    cloud.delete("servers", server["id"])
    assert cloud.list("ports") == []


def test_lists_filter_by_tags_all_and_any_in_creation_order() -> None:
    cloud = make_cloud()
    for index, tags in enumerate((["a", "b"], ["a"], ["b"], ["c"])):
        cloud.create("networks", {"name": f"n{index}", "tags": tags})
    assert [body["name"] for body in cloud.list("networks", tags=["a"])] == ["n0", "n1"]
    assert [body["name"] for body in cloud.list("networks", tags=["a", "b"])] == ["n0"]
    assert [body["name"] for body in cloud.list("networks", tags_any=["b", "c"])] == ["n0", "n2", "n3"]
    assert [body["name"] for body in cloud.list("networks", name="n3")] == ["n3"]


def test_tags_replaced_are_reindexed() -> None:
    cloud = make_cloud()
    network = cloud.create("networks", {"name": "n", "tags": ["old"]})
    cloud.act("networks", network["id"], "set_tags", {"tags": ["new"]})
    assert cloud.list("networks", tags=["old"]) == []
    assert [body["id"] for body in cloud.list("networks", tags=["new"])] == [network["id"]]


def test_volume_metadata_is_indexed_like_tags() -> None:
    cloud = make_cloud()
    volume = cloud.create("volumes", {"size": 1, "metadata": {"marker": "m1"}})
    assert [body["id"] for body in cloud.list("volumes", tags=["marker=m1"])] == [volume["id"]]


@pytest.mark.parametrize(
    ("collection", "request_body", "status"),
    [
        ("networks", {"name": "x"}, 409),
        ("volumes", {"size": 1}, 413),
        ("keypairs", {"name": "k2"}, 403),
    ],
)
def test_quotas_answer_as_each_service_does(
    collection: str, request_body: dict[str, object], status: int
) -> None:
    cloud = make_cloud(quotas={collection: len(make_cloud().list(collection)) + 1})
    first = dict(request_body, name="first") if collection == "keypairs" else request_body
    cloud.create(collection, first)
    with pytest.raises(OverQuota) as raised:
        cloud.create(collection, request_body)
    assert raised.value.status == status
    assert "Quota exceeded" in raised.value.message or "quota" in raised.value.message


def test_volume_gigabytes_quota_counts_sizes() -> None:
    cloud = make_cloud(quotas={"gigabytes": 10})
    cloud.create("volumes", {"size": 8})
    with pytest.raises(OverQuota, match="Requested 3G, quota is 10G and 8G has been consumed"):
        cloud.create("volumes", {"size": 3})


@pytest.mark.parametrize(
    ("fault", "error", "applied"),
    [
        (CallFault.SERVER_ERROR, InternalError, False),
        (CallFault.RATE_LIMITED, TooManyRequests, False),
        (CallFault.TIMEOUT, CallTimedOut, False),
        (CallFault.LOST_RESPONSE, CallTimedOut, True),
    ],
)
def test_queued_faults_fail_the_next_matching_call(
    fault: CallFault, error: type[CloudError], applied: bool
) -> None:
    cloud = make_cloud()
    cloud.faults.fail_next(fault, operation="create", collection="networks")
    with pytest.raises(error):
        cloud.create("networks", {"name": "n"})
    assert bool(cloud.list("networks", name="n")) is applied
    cloud.create("networks", {"name": "second"})  # the fault was one-shot


def test_a_rate_limited_call_says_when_to_come_back() -> None:
    cloud = make_cloud()
    cloud.faults.faults = Faults(retry_after=7.0)
    cloud.faults.fail_next(CallFault.RATE_LIMITED)
    with pytest.raises(TooManyRequests) as raised:
        cloud.list("servers")
    assert raised.value.retry_after == 7.0


def test_an_error_rate_fails_about_that_share_of_calls() -> None:
    cloud = make_cloud()
    cloud.faults.faults = Faults(error_rate=0.1, kinds=(CallFault.SERVER_ERROR,))
    failures = 0
    for _ in range(2000):
        try:
            cloud.list("flavors")
        except InternalError:
            failures += 1
    assert 140 < failures < 260


@pytest.mark.parametrize(
    ("faults", "status_after_build", "exists_later"),
    [
        (Faults(stuck_rate=1.0), "BUILD", True),
        (Faults(error_later_rate=1.0, fate_delay=5.0), "ERROR", True),
        (Faults(vanish_rate=1.0, fate_delay=5.0), None, False),
    ],
)
def test_fates_of_building_servers(
    faults: Faults, status_after_build: str | None, exists_later: bool
) -> None:
    clock = SteppedClock()
    cloud = make_cloud(clock, time_to_active=1.0)
    cloud.faults.faults = faults
    server = cloud.create("servers", server_request(cloud))
    clock.advance(1.0)
    assert cloud.get("servers", server["id"])["status"] in ("ACTIVE", "BUILD")
    clock.advance(5.0)
    found = cloud.list("servers", ids=[server["id"]])
    assert bool(found) is exists_later
    if found:
        assert found[0]["status"] == status_after_build


def test_out_of_band_changes_are_seen_by_the_next_call() -> None:
    cloud = make_cloud()
    server = cloud.create("servers", server_request(cloud))
    cloud.set_status("servers", server["id"], "ERROR")
    assert cloud.get("servers", server["id"])["status"] == "ERROR"
    cloud.change("servers", server["id"], {"name": "renamed"})
    assert cloud.list("servers", name="renamed")
    cloud.vanish("servers", server["id"])
    with pytest.raises(ItemNotFound):
        cloud.get("servers", server["id"])


def test_hold_in_build_keeps_a_server_building() -> None:
    clock = SteppedClock()
    cloud = make_cloud(clock, time_to_active=1.0)
    server = cloud.create("servers", server_request(cloud))
    cloud.hold_in_build("servers", server["id"])
    clock.advance(100)
    assert cloud.get("servers", server["id"])["status"] == "BUILD"


def test_latency_is_slept_through_the_injected_sleep() -> None:
    clock = SteppedClock()
    cloud = make_cloud(clock, latency=Latency(0.05, {"create": 0.2}))
    cloud.list("servers")
    cloud.create("networks", {"name": "n"})
    assert clock.slept == [0.05, 0.2]


def test_over_the_concurrency_limit_a_call_is_refused_with_retry_after() -> None:
    entered = threading.Event()
    release = threading.Event()

    def blocking_sleep(_: float) -> None:
        entered.set()
        release.wait(5)

    cloud = SimulatedCloud(
        CloudSettings(latency=Latency(1.0), max_concurrent=1, reject_over_limit=True, retry_after=3.0),
        sleep=blocking_sleep,
    )
    worker = threading.Thread(target=cloud.list, args=("servers",))
    worker.start()
    assert entered.wait(5)
    with pytest.raises(TooManyRequests) as raised:
        cloud.list("servers")
    release.set()
    worker.join()
    assert raised.value.retry_after == 3.0
    assert cloud.peak_in_flight == 1


@pytest.mark.parametrize(
    ("collection", "request_body", "error", "message"),
    [
        ("servers", {"name": "s", "flavorRef": "99"}, BadRequest, "Flavor 99 could not be found"),
        ("servers", {"name": "s", "flavorRef": "1"}, BadRequest, "Missing imageRef"),
        (
            "subnets",
            {"network_id": "nope", "cidr": "10.0.0.0/24"},
            ItemNotFound,
            "Network nope could not be found",
        ),
        ("volumes", {"size": 0}, BadRequest, "'size' must be a positive integer"),
        ("floatingips", {"floating_network_id": "nope"}, ItemNotFound, "Network nope"),
        ("security_group_rules", {"security_group_id": "nope"}, ItemNotFound, "Security group nope"),
    ],
)
def test_bad_requests_say_what_is_wrong(
    collection: str, request_body: dict[str, object], error: type[CloudError], message: str
) -> None:
    with pytest.raises(error, match=message):
        make_cloud().create(collection, request_body)


def test_routers_interfaces_and_floating_ips_wire_together() -> None:
    cloud = make_cloud()
    public = cloud.list("networks", name="public")[0]["id"]
    network = network_with_subnet(cloud)
    subnet = cloud.list("subnets", where={"network_id": network})[0]["id"]
    router = cloud.create("routers", {"name": "r", "external_gateway_info": {"network_id": public}})
    assert router["external_gateway_info"]["external_fixed_ips"][0]["ip_address"].startswith("172.24.4.")
    interface = cloud.act("routers", router["id"], "add_router_interface", {"subnet_id": subnet})
    assert interface["subnet_id"] == subnet
    with pytest.raises(Conflict):
        cloud.delete("routers", router["id"])
    server = cloud.create("servers", server_request(cloud, networks=[{"uuid": network}]))
    port = cloud.list("ports", where={"device_id": server["id"]})[0]
    floating = cloud.create("floatingips", {"floating_network_id": public, "port_id": port["id"]})
    assert floating["router_id"] == router["id"]
    addresses = cloud.get("servers", server["id"])["addresses"]["private"]
    assert [entry["OS-EXT-IPS:type"] for entry in addresses] == ["fixed", "floating"]


def test_a_volume_attaches_to_one_server_and_blocks_its_deletion() -> None:
    cloud = make_cloud()
    server = cloud.create("servers", server_request(cloud))
    volume = cloud.create("volumes", {"size": 1})
    attachment = cloud.act("servers", server["id"], "attach_volume", {"volumeId": volume["id"]})
    assert attachment["device"] == "/dev/vdb"
    assert cloud.get("volumes", volume["id"])["status"] == "in-use"
    with pytest.raises(BadRequest, match="Invalid volume"):
        cloud.delete("volumes", volume["id"])
    with pytest.raises(Conflict, match="already attached"):
        cloud.act("servers", server["id"], "attach_volume", {"volumeId": volume["id"]})
    cloud.delete("servers", server["id"])
    assert cloud.get("volumes", volume["id"])["status"] == "available"


def test_a_saved_cloud_is_the_same_cloud_when_opened_again(tmp_path: Path) -> None:
    path = tmp_path / "cloud.json"
    clock = SteppedClock()
    cloud = SimulatedCloud.open(path, CloudSettings(time_to_active=10.0), clock=clock.now)
    server = cloud.create("servers", server_request(cloud, tags=["mine"]))
    cloud.save()
    clock.advance(10.0)
    reopened = SimulatedCloud.open(path, CloudSettings(), clock=clock.now)
    assert reopened.get("servers", server["id"])["status"] == "ACTIVE"  # the pending change survived
    assert [body["id"] for body in reopened.list("servers", tags=["mine"])] == [server["id"]]
    reopened.vanish("servers", server["id"])
    reopened.save()
    assert SimulatedCloud.open(path, clock=clock.now).list("servers") == []


def test_a_state_file_of_another_version_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "cloud.json"
    path.write_text('{"version": 99}')
    with pytest.raises(ValueError, match=r"cloud\.json: unknown simulated cloud state version 99"):
        SimulatedCloud.open(path)


def test_a_private_key_is_shown_once_and_never_stored() -> None:
    cloud = make_cloud()
    created = cloud.create("keypairs", {"name": "k"})
    assert created["private_key"].startswith("-----BEGIN")
    assert "private_key" not in cloud.get("keypairs", "k")


def test_a_floating_ip_moved_away_leaves_the_servers_addresses() -> None:
    cloud = make_cloud()
    public = cloud.list("networks", name="public")[0]["id"]
    network = network_with_subnet(cloud)
    server = cloud.create("servers", server_request(cloud, networks=[{"uuid": network}]))
    port = cloud.list("ports", where={"device_id": server["id"]})[0]
    floating = cloud.create("floatingips", {"floating_network_id": public, "port_id": port["id"]})
    cloud.update("floatingips", floating["id"], {"port_id": None})
    kinds = [entry["OS-EXT-IPS:type"] for entry in cloud.get("servers", server["id"])["addresses"]["private"]]
    assert kinds == ["fixed"]
