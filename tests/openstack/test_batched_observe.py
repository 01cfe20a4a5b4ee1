"""Observation is batched: the requests of an observe pass follow pages of 1,000, never resources.

The cloud is filled out of band (straight into the model, no HTTP, tagged as the provider tags
what it creates) so the only requests recorded are the provider's own.
"""

from __future__ import annotations

import pytest

from providers.openstack.json_api import PAGE_SIZE
from providers.openstack.marker_tags import MANAGED_TAG
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import FLAVOR, IMAGE, given_a_network, marker


def servers_in(sim: CloudUnderTest, count: int, tags: tuple[str, ...] = (MANAGED_TAG,)) -> list[str]:
    """Servers made straight in the model, tagged as this provider tags its own by default."""
    image = next(body["id"] for body in sim.cloud.list("images") if body["name"] == IMAGE)
    request = {"flavorRef": "1", "imageRef": image, "networks": "none", "tags": list(tags)}
    return [sim.cloud.create("servers", {**request, "name": f"s{index}"})["id"] for index in range(count)]


def ports_in(sim: CloudUnderTest, count: int) -> list[str]:
    network = sim.cloud.create("networks", {"name": "fleet"})
    request = {"network_id": network["id"], "tags": [MANAGED_TAG]}
    return [sim.cloud.create("ports", request)["id"] for index in range(count)]


@pytest.mark.parametrize(("count", "pages"), [(1, 1), (PAGE_SIZE, 2), (2 * PAGE_SIZE + 1, 3)])
def test_servers_are_observed_one_request_per_page(sim: CloudUnderTest, count: int, pages: int) -> None:
    ids = servers_in(sim, count)
    sim.provider.observe("OS::Nova::Server", ids[:1])  # authenticated and discovered beforehand
    sim.log.clear()

    seen = sim.provider.observe("OS::Nova::Server", ids)

    assert set(seen) == set(ids)
    assert sim.log.count() == sim.log.count("GET", "/servers/detail") <= pages


@pytest.mark.parametrize(("count", "requests"), [(3, 1), (100, 1), (1_500, 2)])
def test_ports_are_observed_by_id_filter_or_by_page(sim: CloudUnderTest, count: int, requests: int) -> None:
    ids = ports_in(sim, count)
    sim.provider.observe("OS::Neutron::Port", ids[:1])
    sim.log.clear()

    seen = sim.provider.observe("OS::Neutron::Port", ids)

    assert set(seen) == set(ids)
    assert sim.log.count() == sim.log.count("GET", "/ports") == requests


def test_observe_lists_only_managed_servers_and_finds_a_stripped_one_in_the_whole_list(
    sim: CloudUnderTest,
) -> None:
    given_a_network(sim.provider)
    properties = {"flavor": FLAVOR, "image": IMAGE, "networks": [{"network": "private"}]}
    ours = [
        sim.provider.create("OS::Nova::Server", properties, marker(f"n{index}")).physical_id
        for index in range(3)
    ]
    servers_in(sim, 5, tags=())  # someone else's servers in the same project
    sim.log.clear()

    assert set(sim.provider.observe("OS::Nova::Server", ours)) == set(ours)
    assert sim.log.count() == 1

    sim.cloud.change("servers", ours[0], {"tags": []})
    sim.log.clear()
    assert set(sim.provider.observe("OS::Nova::Server", ours)) == set(ours)
    assert sim.log.count() == 2


def test_observe_lists_only_managed_volumes_and_finds_a_stripped_one_in_the_whole_list(
    sim: CloudUnderTest,
) -> None:
    ours = [
        sim.provider.create("OS::Cinder::Volume", {"size": 1}, marker(f"v{index}")).physical_id
        for index in range(3)
    ]
    sim.cloud.create("volumes", {"size": 1, "name": "someone-elses"})
    sim.log.clear()

    assert set(sim.provider.observe("OS::Cinder::Volume", ours)) == set(ours)
    assert sim.log.count() == 1

    sim.cloud.change("volumes", ours[0], {"metadata": {}})
    sim.log.clear()
    assert set(sim.provider.observe("OS::Cinder::Volume", ours)) == set(ours)
    assert sim.log.count() == 2
