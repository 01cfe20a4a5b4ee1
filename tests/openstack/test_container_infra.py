"""OS::Magnum::ClusterTemplate and Cluster against the simulated cloud over HTTP, through
openstacksdk: Magnum's references checked when a template is made, a cluster's asynchronous
states, its node count changed in place, the marker carried as a label."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.documented_requests import undocumented_requests
from tests.openstack.scenario import IMAGE, marker

TEMPLATE = "OS::Magnum::ClusterTemplate"
CLUSTER = "OS::Magnum::Cluster"


def template_properties(**changes: object) -> dict[str, object]:
    base = {"name": "k8s", "image": IMAGE, "external_network": "public", "coe": "kubernetes",
            "flavor": "m1.small", "master_flavor": "m1.small", "keypair": "corpus-key",
            "labels": {"kube_tag": "v1.28.9"}}  # fmt: skip
    return {**base, **changes}


def given_a_keypair(sim: CloudUnderTest) -> None:
    sim.provider.create("OS::Nova::KeyPair", {"name": "corpus-key"}, marker("key"))


def test_a_cluster_template_names_what_the_cloud_holds_and_carries_its_marker(sim: CloudUnderTest) -> None:
    given_a_keypair(sim)
    example = marker("template")

    created = sim.provider.create(TEMPLATE, template_properties(), example)

    found = sim.provider.find_by_marker(TEMPLATE, example)
    assert created.status is LiveStatus.READY
    assert created.properties["labels"] == {"kube_tag": "v1.28.9"}
    assert created.properties["coe"] == "kubernetes"
    assert found is not None and found.physical_id == created.physical_id


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"image": "no-such-image"}, "Unable to find Image no-such-image"),
        ({"keypair": "no-such-key"}, "Unable to find keypair no-such-key"),
        ({"external_network": "no-such-net"}, "Unable to find external network no-such-net"),
        ({"flavor": "m1.huge"}, "Unable to find flavor m1.huge"),
    ],
)
def test_a_cluster_template_naming_what_is_missing_is_refused_with_magnums_words(
    sim: CloudUnderTest, changes: dict[str, object], words: str
) -> None:
    given_a_keypair(sim)

    with pytest.raises(NotFound, match=words):
        sim.provider.create(TEMPLATE, template_properties(**changes), marker("template"))


def test_a_cluster_template_on_a_network_that_is_not_external_is_a_bad_request(sim: CloudUnderTest) -> None:
    given_a_keypair(sim)
    sim.provider.create("OS::Neutron::Net", {"name": "private"}, marker("net"))

    with pytest.raises(Permanent, match="not an external network"):
        sim.provider.create(TEMPLATE, template_properties(external_network="private"), marker("template"))


def test_a_cluster_builds_then_grows_in_place_and_is_observed_in_one_list(sim: CloudUnderTest) -> None:
    given_a_keypair(sim)
    template = sim.provider.create(TEMPLATE, template_properties(), marker("template"))
    properties = {"name": "prod", "cluster_template": "k8s", "node_count": 2, "master_count": 3}
    example = marker("cluster")

    created = sim.provider.create(CLUSTER, properties, example)
    sim.clock.advance(60)
    sim.log.clear()
    seen = sim.provider.observe(CLUSTER, [created.physical_id])[created.physical_id]
    observe_requests = sim.log.count()
    grown = sim.provider.update(
        CLUSTER, created.physical_id, {**properties, "node_count": 5}, frozenset({"node_count"})
    )
    sim.clock.advance(60)
    settled = sim.provider.observe(CLUSTER, [created.physical_id])[created.physical_id]

    assert created.status is LiveStatus.IN_PROGRESS and created.attributes["status"] == "CREATE_IN_PROGRESS"
    assert seen.status is LiveStatus.READY and seen.attributes["status"] == "CREATE_COMPLETE"
    assert observe_requests == 1
    assert seen.attributes["cluster_template_id"] == template.physical_id
    assert len(seen.attributes["master_addresses"]) == 3 and seen.attributes["api_address"]
    assert grown.status is LiveStatus.IN_PROGRESS and grown.attributes["status"] == "UPDATE_IN_PROGRESS"
    assert (
        settled.attributes["status"] == "UPDATE_COMPLETE" and len(settled.attributes["node_addresses"]) == 5
    )
    assert sim.provider.find_by_marker(CLUSTER, example) is not None
    assert undocumented_requests(sim) == []


def test_a_template_in_use_refuses_changes_and_deletion(sim: CloudUnderTest) -> None:
    given_a_keypair(sim)
    template = sim.provider.create(TEMPLATE, template_properties(), marker("template"))
    sim.provider.create(CLUSTER, {"cluster_template": template.physical_id}, marker("cluster"))

    with pytest.raises(Permanent, match="referenced by one or multiple clusters"):
        sim.provider.update(
            TEMPLATE, template.physical_id, template_properties(coe="swarm"), frozenset({"coe"})
        )
    with pytest.raises(Permanent, match="referenced by one or multiple clusters"):
        sim.provider.delete(TEMPLATE, template.physical_id)


def test_a_cluster_that_vanished_is_not_observed(sim: CloudUnderTest) -> None:
    given_a_keypair(sim)
    sim.provider.create(TEMPLATE, template_properties(), marker("template"))
    created = sim.provider.create(CLUSTER, {"cluster_template": "k8s"}, marker("cluster"))

    sim.cloud.vanish("clusters", created.physical_id)

    assert sim.provider.observe(CLUSTER, [created.physical_id]) == {}
    with pytest.raises(NotFound):
        sim.provider.delete(CLUSTER, created.physical_id)
