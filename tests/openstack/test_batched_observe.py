"""Observation is batched: the requests of an observe pass follow pages of 1,000, never resources.

The cloud is filled out of band (straight into the model, no HTTP) so the only requests recorded
are the provider's own.
"""

from __future__ import annotations

import pytest

from providers.openstack.json_api import PAGE_SIZE
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import IMAGE


def servers_in(sim: CloudUnderTest, count: int) -> list[str]:
    image = next(body["id"] for body in sim.cloud.list("images") if body["name"] == IMAGE)
    request = {"flavorRef": "1", "imageRef": image, "networks": "none"}
    return [sim.cloud.create("servers", {**request, "name": f"s{index}"})["id"] for index in range(count)]


def ports_in(sim: CloudUnderTest, count: int) -> list[str]:
    network = sim.cloud.create("networks", {"name": "fleet"})
    return [sim.cloud.create("ports", {"network_id": network["id"]})["id"] for index in range(count)]


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
