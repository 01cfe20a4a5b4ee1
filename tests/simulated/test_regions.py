"""A simulated cloud of several regions: each region holds its own resources, Keystone's catalog lists
every region's endpoints, the saved state keeps every region, and openstacksdk reaches a region
through its own `region_name` on the clouds.yaml entry the cloud wrote."""

from __future__ import annotations

import random
from pathlib import Path

import openstack
import pytest
from openstack.config import OpenStackConfig

from providers.interface import Marker, Permanent
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.embedded import ServedCloud, serve_in_thread
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings

TWO_REGIONS = CloudSettings(regions=("RegionTwo",))


def _in(served: ServedCloud, region: str) -> openstack.connection.Connection:
    config = OpenStackConfig(config_files=[str(served.clouds_yaml)], load_envvars=False)
    return openstack.connection.Connection(config=config.get_one(cloud=served.cloud_name, region_name=region))


def test_each_region_holds_its_own_resources() -> None:
    cloud = SimulatedCloud(TWO_REGIONS, random_source=random.Random(3))
    far = cloud.in_region("RegionTwo")

    made = far.create("networks", {"name": "far-net"})

    assert [body["id"] for body in far.list("networks", name="far-net")] == [made["id"]]
    assert cloud.list("networks", name="far-net") == []
    assert (cloud.region, far.region, list(cloud.regions)) == (
        "RegionOne",
        "RegionTwo",
        ["RegionOne", "RegionTwo"],
    )
    with pytest.raises(KeyError, match="no region 'RegionNine' \\(the cloud has: RegionOne, RegionTwo\\)"):
        cloud.in_region("RegionNine")


def test_the_saved_state_keeps_every_region_also_when_opened_without_naming_them(tmp_path: Path) -> None:
    path = tmp_path / "cloud.json"
    cloud = SimulatedCloud.open(path, TWO_REGIONS)
    made = cloud.in_region("RegionTwo").create("networks", {"name": "far-net"})
    cloud.in_region("RegionTwo").save()  # as the region's admin API asks: the home region saves all

    reopened = SimulatedCloud.open(path)

    assert [body["id"] for body in reopened.in_region("RegionTwo").list("networks", name="far-net")] == [
        made["id"]
    ]
    assert reopened.list("networks", name="far-net") == []


def test_a_provider_works_in_one_region_and_reaches_the_others() -> None:
    home = SimulatedProvider(SimulatedCloud(TWO_REGIONS))
    far = home.in_region("RegionTwo")
    marker = Marker("app/far", "net", "record-1")

    live = far.create("OS::Neutron::Net", {"name": "far-net"}, marker)

    assert (home.region_name(), far.region_name()) == ("RegionOne", "RegionTwo")
    assert home.region_names() == far.region_names() == {"RegionOne", "RegionTwo"}
    assert set(far.observe("OS::Neutron::Net", [live.physical_id])) == {live.physical_id}
    assert home.observe("OS::Neutron::Net", [live.physical_id]) == {}
    with pytest.raises(Permanent, match="no region 'RegionNine'"):
        home.in_region("RegionNine")


def test_identity_is_one_for_the_whole_cloud() -> None:
    home = SimulatedProvider(SimulatedCloud(TWO_REGIONS))
    far = home.in_region("RegionTwo")

    project = far.create("OS::Keystone::Project", {"name": "far-project"}, Marker("app/far", "p", "record-2"))

    assert set(home.observe("OS::Keystone::Project", [project.physical_id])) == {project.physical_id}


def test_the_catalog_lists_every_region_and_each_region_answers_for_its_own() -> None:
    with serve_in_thread(SimulatedCloud(TWO_REGIONS)) as served:
        near, far = _in(served, "RegionOne"), _in(served, "RegionTwo")
        try:
            catalog = near.service_catalog
            compute = next(entry for entry in catalog if entry["type"] == "compute")
            identity = next(entry for entry in catalog if entry["type"] == "identity")
            public = {e["region_id"]: e["url"] for e in compute["endpoints"] if e["interface"] == "public"}
            keystone = {e["region_id"]: e["url"] for e in identity["endpoints"] if e["interface"] == "public"}
            made = far.network.create_network(name="far-net")

            assert public == {
                "RegionOne": f"{served.url}/compute/v2.1",
                "RegionTwo": f"{served.url}/regions/RegionTwo/compute/v2.1",
            }
            assert set(keystone.values()) == {f"{served.url}/identity"}
            assert [net.id for net in far.network.networks(name="far-net")] == [made.id]
            assert list(near.network.networks(name="far-net")) == []
            assert served.cloud.in_region("RegionTwo").count("networks") == served.cloud.count("networks") + 1
        finally:
            near.close()
            far.close()
