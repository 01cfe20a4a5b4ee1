"""OS::Nova::KeyPair and OS::Nova::ServerGroup against the simulated cloud over HTTP."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

KEY_PAIR = "OS::Nova::KeyPair"
SERVER_GROUP = "OS::Nova::ServerGroup"
PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJx0b3RhbGx5LWEta2V5LWZvci10ZXN0cw== ops@example"


def test_a_generated_key_pair_keeps_its_private_key_only_when_asked(sim: CloudUnderTest) -> None:
    saved = sim.provider.create(KEY_PAIR, {"name": "saved", "save_private_key": True}, marker("saved"))
    unsaved = sim.provider.create(KEY_PAIR, {"name": "unsaved"}, marker("unsaved"))

    assert saved.physical_id == "saved"
    assert "PRIVATE KEY" in saved.attributes["private_key"]
    assert unsaved.attributes["private_key"] == ""
    assert saved.attributes["public_key"]


def test_a_key_pair_is_observed_replaced_and_deleted(sim: CloudUnderTest) -> None:
    created = sim.provider.create(KEY_PAIR, {"name": "ops", "public_key": PUBLIC_KEY}, marker("key"))
    seen = sim.provider.observe(KEY_PAIR, ["ops", "absent"])

    assert set(seen) == {"ops"} and seen["ops"].status is LiveStatus.READY
    assert seen["ops"].properties["public_key"] == PUBLIC_KEY
    with pytest.raises(Permanent):
        sim.provider.update(KEY_PAIR, "ops", {"name": "ops"}, frozenset({"public_key"}))

    replacement = sim.provider.create(KEY_PAIR, {"name": "ops-2", "public_key": PUBLIC_KEY}, marker("key"))
    sim.provider.delete(KEY_PAIR, created.physical_id)
    assert set(sim.provider.observe(KEY_PAIR, ["ops", "ops-2"])) == {replacement.physical_id}
    with pytest.raises(NotFound):
        sim.provider.delete(KEY_PAIR, "ops")


def test_creating_the_same_key_pair_again_adopts_it_and_another_key_is_permanent(sim: CloudUnderTest) -> None:
    sim.provider.create(KEY_PAIR, {"name": "ops", "public_key": PUBLIC_KEY}, marker("key"))

    again = sim.provider.create(KEY_PAIR, {"name": "ops", "public_key": PUBLIC_KEY}, marker("key"))

    assert again.physical_id == "ops"
    with pytest.raises(Permanent, match="already exists"):
        sim.provider.create(KEY_PAIR, {"name": "ops"}, marker("other"))


def test_an_unnamed_server_group_is_found_by_its_marker(sim: CloudUnderTest) -> None:
    group = marker("group")
    created = sim.provider.create(SERVER_GROUP, {"policies": ["anti-affinity"]}, group)

    found = sim.provider.find_by_marker(SERVER_GROUP, group)
    seen = sim.provider.observe(SERVER_GROUP, [created.physical_id])

    assert found is not None and found.physical_id == created.physical_id
    assert seen[created.physical_id].properties["policies"] == ["anti-affinity"]


def test_a_server_group_is_replaced_and_deleted(sim: CloudUnderTest) -> None:
    old = sim.provider.create(SERVER_GROUP, {"name": "g", "policies": ["affinity"]}, marker("group"))
    new = sim.provider.create(SERVER_GROUP, {"name": "g", "policies": ["anti-affinity"]}, marker("group"))

    sim.provider.delete(SERVER_GROUP, old.physical_id)

    assert set(sim.provider.observe(SERVER_GROUP, [old.physical_id, new.physical_id])) == {new.physical_id}
    with pytest.raises(NotFound):
        sim.provider.delete(SERVER_GROUP, old.physical_id)


def test_a_server_group_with_rules_speaks_microversion_2_64(sim: CloudUnderTest) -> None:
    properties = {"policies": ["anti-affinity"], "rules": {"max_server_per_host": 2}}

    created = sim.provider.create(SERVER_GROUP, properties, marker("group"))

    shown = created.attributes["show"]
    assert shown.get("policy") == "anti-affinity"
    assert shown.get("rules") == {"max_server_per_host": 2}
    assert created.properties["policies"] == ["anti-affinity"]


def test_server_groups_past_the_first_page_are_observed(sim: CloudUnderTest) -> None:
    for index in range(1_005):
        sim.cloud.create("server_groups", {"name": f"filler-{index}", "policies": ["affinity"]})
    last = sim.provider.create("OS::Nova::ServerGroup", {"policies": ["anti-affinity"]}, marker("late"))

    seen = sim.provider.observe("OS::Nova::ServerGroup", [last.physical_id])

    assert list(seen) == [last.physical_id]
    assert sim.log.count("GET", "/os-server-groups") == 2  # offset 0, then offset 1000
