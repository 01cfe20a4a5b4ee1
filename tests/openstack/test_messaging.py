"""OS::Zaqar::Queue against the simulated cloud over HTTP, through openstacksdk."""

from __future__ import annotations

import pytest

from providers.interface import NotFound
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker

QUEUE = "OS::Zaqar::Queue"


def test_a_queue_keeps_its_metadata_and_marker_and_a_repeated_create_adopts_it(sim: CloudUnderTest) -> None:
    jobs = marker("jobs")
    created = sim.provider.create(QUEUE, {"name": "jobs", "metadata": {"_default_message_ttl": 60}}, jobs)

    again = sim.provider.create(QUEUE, {"name": "jobs", "metadata": {"_default_message_ttl": 60}}, jobs)

    assert created.physical_id == again.physical_id == "jobs"
    assert created.properties["metadata"] == {"_default_message_ttl": 60}
    assert created.attributes["href"].endswith("/queues/jobs")
    assert "reconciler_marker" in sim.cloud.get("queues", "jobs")["metadata"]
    assert sim.cloud.count("queues") == 1


def test_an_unnamed_queue_is_found_by_its_marker(sim: CloudUnderTest) -> None:
    work = marker("work", stack="nested/stack")
    created = sim.provider.create(QUEUE, {}, work)

    found = sim.provider.find_by_marker(QUEUE, work)

    assert found is not None and found.physical_id == created.physical_id
    assert "/" not in created.physical_id and len(created.physical_id) <= 64


def test_metadata_changes_by_one_json_patch_and_queues_are_observed_in_pages(sim: CloudUnderTest) -> None:
    names = [f"q{index:02d}" for index in range(25)]
    for name in names:
        sim.provider.create(QUEUE, {"name": name, "metadata": {"a": 1}}, marker(name))
    sim.log.clear()

    changed = sim.provider.update(
        QUEUE, "q03", {"name": "q03", "metadata": {"b": 2}}, frozenset({"metadata"})
    )
    seen = sim.provider.observe(QUEUE, [*names, "absent"])

    assert changed.properties["metadata"] == {"b": 2}
    assert sim.log.count("PATCH") == 1
    assert set(seen) == set(names) and seen["q03"].properties["metadata"] == {"b": 2}
    lists = [sent for sent in sim.log.requests if sent.method == "GET" and sent.path.endswith("/queues")]
    assert len(lists) == 2  # 25 queues in pages of 20


def test_a_queue_deleted_twice_is_gone(sim: CloudUnderTest) -> None:
    sim.provider.create(QUEUE, {"name": "once"}, marker("once"))

    sim.provider.delete(QUEUE, "once")

    with pytest.raises(NotFound):
        sim.provider.delete(QUEUE, "once")
