"""OS::Designate::Zone and RecordSet (and the v1 names Domain and Record) against the simulated
cloud over HTTP, through openstacksdk."""

from __future__ import annotations

import pytest

from providers.interface import LiveStatus, NotFound, Permanent
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

ZONE = "OS::Designate::Zone"
RECORD_SET = "OS::Designate::RecordSet"
DOMAIN = "OS::Designate::Domain"
RECORD = "OS::Designate::Record"


def test_a_zone_is_pending_then_active_and_carries_its_marker_as_description(sim: CloudUnderTest) -> None:
    example = marker("zone")
    created = sim.provider.create(
        ZONE, {"name": "example.org.", "email": "ops@example.org", "ttl": 600}, example
    )

    assert created.status is LiveStatus.IN_PROGRESS
    sim.clock.advance(60)
    seen = sim.provider.observe(ZONE, [created.physical_id])[created.physical_id]
    found = sim.provider.find_by_marker(ZONE, example)
    assert seen.status is LiveStatus.READY and seen.properties["ttl"] == 600
    assert isinstance(seen.attributes["serial"], int)
    assert found is not None and found.physical_id == created.physical_id


def test_a_zone_changes_in_place_and_its_serial_rises(sim: CloudUnderTest) -> None:
    properties = {"name": "example.org.", "email": "ops@example.org", "description": "mine"}
    created = sim.provider.create(ZONE, properties, marker("zone"))
    sim.clock.advance(60)

    changed = sim.provider.update(ZONE, created.physical_id, {**properties, "ttl": 300}, frozenset({"ttl"}))

    assert changed.status is LiveStatus.IN_PROGRESS and changed.properties["ttl"] == 300
    assert changed.attributes["serial"] > created.attributes["serial"]


def test_a_zone_taken_by_someone_else_fails_and_ours_is_adopted(sim: CloudUnderTest) -> None:
    sim.cloud.create("zones", {"name": "taken.org.", "email": "x@taken.org"})
    ours = marker("zone")
    first = sim.provider.create(ZONE, {"name": "ours.org.", "email": "ops@ours.org"}, ours)

    again = sim.provider.create(ZONE, {"name": "ours.org.", "email": "ops@ours.org"}, ours)

    assert again.physical_id == first.physical_id
    with pytest.raises(Permanent, match="already exists"):
        sim.provider.create(ZONE, {"name": "taken.org.", "email": "ops@ours.org"}, marker("other"))


def test_record_sets_live_in_their_zone_and_are_observed_in_one_list(sim: CloudUnderTest) -> None:
    zone = sim.provider.create(ZONE, {"name": "example.org.", "email": "ops@example.org"}, marker("zone"))
    sim.clock.advance(60)
    www_properties = {
        "zone": "example.org.",
        "name": "www.example.org.",
        "type": "A",
        "records": ["192.0.2.1"],
    }
    mx_properties = {
        "zone": zone.physical_id,
        "name": "example.org.",
        "type": "MX",
        "records": ["10 mx.org."],
    }
    www = sim.provider.create(RECORD_SET, www_properties, marker("www"))
    mail = sim.provider.create(RECORD_SET, mx_properties, marker("mx"))
    sim.clock.advance(60)
    sim.log.clear()

    seen = sim.provider.observe(RECORD_SET, [www.physical_id, mail.physical_id])
    changed = sim.provider.update(
        RECORD_SET, www.physical_id, {"records": ["192.0.2.2"], "ttl": 60}, frozenset({"records", "ttl"})
    )

    assert set(seen) == {www.physical_id, mail.physical_id}
    assert all(live.status is LiveStatus.READY for live in seen.values())
    assert changed.properties["records"] == ["192.0.2.2"]
    with pytest.raises(Permanent, match="not within zone"):
        stray = {"zone": zone.physical_id, "name": "www.other.org.", "type": "A", "records": ["192.0.2.9"]}
        sim.provider.create(RECORD_SET, stray, marker("stray"))
    sim.provider.delete(RECORD_SET, www.physical_id)
    with pytest.raises(NotFound):
        sim.provider.delete(RECORD_SET, www.physical_id)


def test_the_v1_domain_and_record_are_served_as_a_zone_and_a_record_set(sim: CloudUnderTest) -> None:
    domain = sim.provider.create(DOMAIN, {"name": "designate-example.com.", "email": "a@b.c"}, marker("d"))
    sim.clock.advance(60)

    record = sim.provider.create(
        RECORD,
        {"domain": domain.physical_id, "name": "test.designate-example.com.", "type": "MX",
         "data": "mail.example.com.", "priority": 10},
        marker("r"),
    )  # fmt: skip

    (stored,) = sim.cloud.list("recordsets")
    assert stored["records"] == ["10 mail.example.com."]
    assert record.physical_id.endswith(stored["id"])
    sim.provider.delete(DOMAIN, domain.physical_id)
    assert sim.cloud.count("recordsets") == 0
