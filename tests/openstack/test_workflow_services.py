"""Mistral workflows and cron triggers, Zaqar subscriptions and Mistral triggers, Zun containers and
Blazar hosts and leases against the simulated cloud over HTTP, through openstacksdk."""

from __future__ import annotations

import pytest
import yaml

from providers.interface import NotFound, Permanent
from providers.simulated.settings import CloudSettings
from tests.openstack.conftest import CloudUnderTest, StartCloud
from tests.openstack.scenario import given_a_network, marker

WORKFLOW = "OS::Mistral::Workflow"
CRON_TRIGGER = "OS::Mistral::CronTrigger"
MISTRAL_TRIGGER = "OS::Zaqar::MistralTrigger"
SUBSCRIPTION = "OS::Zaqar::Subscription"
CONTAINER = "OS::Zun::Container"
HOST = "OS::Blazar::Host"
LEASE = "OS::Blazar::Lease"
GREETING = {
    "type": "direct",
    "input": {"who": "world"},
    "tasks": [
        {"name": "hello", "action": "std.echo output=hi", "on_success": ["bye"], "wait_before": 2},
        {"name": "bye", "action": "std.noop"},
    ],
}
START_OF_LEASE = 1_893_492_000.0  # 2030-01-01 10:00 UTC
LEASE_PROPERTIES = {
    "name": "nightly",
    "start_date": "2030-01-01 10:00",
    "end_date": "2030-01-10 10:00",
    "reservations": [
        {"resource_type": "physical:host", "min": 1, "max": 2, "hypervisor_properties": "", "amount": None},
        {"resource_type": "virtual:instance", "amount": 2, "vcpus": 1, "memory_mb": 512, "disk_gb": 1},
    ],
}


def test_a_workflow_is_sent_as_heats_definition_and_found_again_by_its_marker(sim: CloudUnderTest) -> None:
    greeter = marker("greeter", stack="nested/stack")
    created = sim.provider.create(WORKFLOW, GREETING, greeter)

    stored = sim.cloud.list("workflows", name=created.physical_id)[0]
    definition = yaml.safe_load(stored["definition"])[created.physical_id]
    assert "/" not in created.physical_id
    assert definition["tasks"]["hello"] == {
        "action": "std.echo output=hi",
        "on-success": ["bye"],
        "wait-before": 2,
    }
    assert definition["input"] == [{"who": "world"}]
    assert created.attributes["data"] == {"name": created.physical_id, "input": {"who": "world"}}
    found = sim.provider.find_by_marker(WORKFLOW, greeter)
    assert found is not None and found.physical_id == created.physical_id
    again = sim.provider.create(WORKFLOW, GREETING, greeter)  # repeated after a crash: adopted
    assert again.physical_id == created.physical_id and sim.cloud.count("workflows") == 1


def test_a_definition_mistral_refuses_fails_with_mistrals_reason(sim: CloudUnderTest) -> None:
    both = {"type": "direct", "tasks": [{"name": "t", "action": "std.noop", "workflow": "other"}]}
    requires = {"type": "direct", "tasks": [{"name": "t", "action": "std.noop", "requires": ["u"]}]}

    with pytest.raises(Permanent, match=r"HTTP 400: Invalid DSL: task 't'.*both action and workflow"):
        sim.provider.create(WORKFLOW, both, marker("both"))
    with pytest.raises(Permanent, match="'requires', which only reverse workflows allow"):
        sim.provider.create(WORKFLOW, requires, marker("requires"))
    assert sim.cloud.count("workflows") == 0


def test_a_workflow_renamed_keeps_its_marker_and_takes_its_new_name_as_physical_id(
    sim: CloudUnderTest,
) -> None:
    created = sim.provider.create(WORKFLOW, {**GREETING, "name": "greet"}, marker("greet"))

    renamed = sim.provider.update(
        WORKFLOW, created.physical_id, {**GREETING, "name": "salute"}, frozenset({"name"})
    )

    assert renamed.physical_id == "salute"
    assert [body["name"] for body in sim.cloud.list("workflows")] == ["salute"]
    assert any(tag.startswith("reconciler:") for tag in sim.cloud.list("workflows")[0]["tags"])
    assert set(sim.provider.observe(WORKFLOW, ["salute", "greet"])) == {"salute"}


def test_a_cron_trigger_runs_a_workflow_by_its_data_and_refuses_a_bad_pattern(sim: CloudUnderTest) -> None:
    workflow = sim.provider.create(WORKFLOW, GREETING, marker("workflow"))
    ticking = marker("ticking")

    trigger = sim.provider.create(
        CRON_TRIGGER,
        {"pattern": "0,20,40 * * * *", "count": 3, "workflow": workflow.attributes["data"]},
        ticking,
    )

    assert trigger.attributes["remaining_executions"] == 3
    assert trigger.attributes["next_execution_time"].endswith((":00:00", ":20:00", ":40:00"))
    assert sim.cloud.list("cron_triggers")[0]["workflow_input"] == {"who": "world"}
    found = sim.provider.find_by_marker(CRON_TRIGGER, ticking)
    assert found is not None and found.physical_id == trigger.physical_id
    with pytest.raises(Permanent, match="HTTP 400: Invalid cron pattern '61 \\* \\* \\* \\*'"):
        sim.provider.create(
            CRON_TRIGGER, {"pattern": "61 * * * *", "workflow": {"name": workflow.physical_id}}, marker("bad")
        )
    with pytest.raises(Permanent, match="cron triggers associated"):
        sim.provider.delete(WORKFLOW, workflow.physical_id)  # Mistral keeps a workflow its triggers run
    sim.provider.delete(CRON_TRIGGER, trigger.physical_id)
    sim.provider.delete(WORKFLOW, workflow.physical_id)
    with pytest.raises(NotFound):
        sim.provider.delete(CRON_TRIGGER, trigger.physical_id)


def test_a_mistral_trigger_subscribes_mistrals_executions_to_a_queue(sim: CloudUnderTest) -> None:
    sim.provider.create("OS::Zaqar::Queue", {"name": "alarms"}, marker("queue"))
    workflow = sim.provider.create(WORKFLOW, GREETING, marker("autoheal"))
    heal = marker("heal")

    trigger = sim.provider.create(
        MISTRAL_TRIGGER,
        {"queue_name": "alarms", "workflow_id": workflow.physical_id, "input": {"who": "x"}, "ttl": 3600},
        heal,
    )

    stored = sim.cloud.list("subscriptions")[0]
    assert trigger.physical_id == f"alarms/{stored['id']}"
    assert stored["subscriber"].startswith("trust+http") and stored["subscriber"].endswith(
        "/workflow/v2/executions"
    )
    assert trigger.properties["workflow_id"] == workflow.physical_id
    found = sim.provider.find_by_marker(MISTRAL_TRIGGER, heal)
    assert found is not None and found.physical_id == trigger.physical_id
    changed = sim.provider.update(
        MISTRAL_TRIGGER,
        trigger.physical_id,
        {"queue_name": "alarms", "workflow_id": workflow.physical_id, "input": {"who": "y"}, "ttl": 60},
        frozenset({"input", "ttl"}),
    )
    assert changed.properties["input"] == {"who": "y"} and changed.properties["ttl"] == 60
    assert set(sim.provider.observe(MISTRAL_TRIGGER, [trigger.physical_id, "alarms/absent"])) == {
        trigger.physical_id
    }


def test_a_subscription_moves_to_another_queue_as_a_new_subscription(sim: CloudUnderTest) -> None:
    for name in ("a", "b"):
        sim.provider.create("OS::Zaqar::Queue", {"name": name}, marker(name))
    properties = {"queue_name": "a", "subscriber": "http://hooks.example.org/q", "ttl": 3600}
    subscription = sim.provider.create(SUBSCRIPTION, properties, marker("hook"))

    moved = sim.provider.update(
        SUBSCRIPTION, subscription.physical_id, {**properties, "queue_name": "b"}, frozenset({"queue_name"})
    )

    assert moved.physical_id.startswith("b/") and sim.cloud.count("subscriptions") == 1
    with pytest.raises(Permanent, match="HTTP 400: The subscriber type"):
        sim.provider.create(SUBSCRIPTION, {**properties, "subscriber": "ftp://x"}, marker("ftp"))


def test_a_container_goes_creating_then_running_on_its_own_port(start_cloud: StartCloud) -> None:
    sim = start_cloud(CloudSettings(time_to_active=30.0))
    given_a_network(sim.provider)
    web = marker("web")

    created = sim.provider.create(
        CONTAINER, {"image": "nginx:latest", "networks": [{"network": "private"}], "cpu": 1.0}, web
    )
    assert created.status.value == "IN_PROGRESS"
    sim.clock.advance(30)
    running = sim.provider.observe(CONTAINER, [created.physical_id])[created.physical_id]

    assert running.status.value == "READY"
    entry = running.attributes["addresses"]["private"][0]
    port = sim.cloud.get("ports", entry["port"])
    assert (port["device_id"], port["device_owner"]) == (created.physical_id, "compute:kuryr")
    found = sim.provider.find_by_marker(CONTAINER, web)
    assert found is not None and found.physical_id == created.physical_id
    resized = sim.provider.update(CONTAINER, created.physical_id, {"cpu": 2.0}, frozenset({"cpu"}))
    assert resized.attributes["cpu"] == 2.0
    sim.provider.delete(CONTAINER, created.physical_id)
    assert sim.cloud.count("ports") == 0  # the container's port went with it


def test_a_container_moves_between_networks_in_place(sim: CloudUnderTest) -> None:
    given_a_network(sim.provider, "blue")
    given_a_network(sim.provider, "green")
    created = sim.provider.create(
        CONTAINER, {"image": "busybox", "networks": [{"network": "blue"}]}, marker("c")
    )

    moved = sim.provider.update(
        CONTAINER,
        created.physical_id,
        {"image": "busybox", "networks": [{"network": "green"}]},
        frozenset({"networks"}),
    )

    assert "green" in moved.attributes["addresses"] and "blue" not in moved.attributes["addresses"]
    assert moved.physical_id == created.physical_id


def test_a_stopped_container_is_failed_with_its_reason(sim: CloudUnderTest) -> None:
    created = sim.provider.create(CONTAINER, {"image": "busybox"}, marker("c"))
    sim.cloud.change(
        "application_containers", created.physical_id, {"status": "Stopped", "status_reason": "OOM"}
    )

    seen = sim.provider.observe(CONTAINER, [created.physical_id])[created.physical_id]

    assert seen.status.value == "FAILED" and seen.status_reason == "the container is Stopped: OOM"


def test_a_lease_needs_an_enrolled_host_and_follows_its_dates(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match="Couldn't find any host in Blazar"):
        sim.provider.create(LEASE, LEASE_PROPERTIES, marker("early"))
    host = sim.provider.create(HOST, {"name": "compute-1"}, marker("host"))
    again = sim.provider.create(HOST, {"name": "compute-1"}, marker("host"))  # enrolled already: adopted

    lease = sim.provider.create(LEASE, LEASE_PROPERTIES, marker("lease"))
    repeated = sim.provider.create(LEASE, LEASE_PROPERTIES, marker("lease"))

    assert again.physical_id == host.physical_id and host.attributes["vcpus"] == 8
    assert repeated.physical_id == lease.physical_id and lease.status.value == "READY"
    assert lease.attributes["status"] == "PENDING"
    host_reservation, instance_reservation = lease.attributes["reservations"]
    assert "amount" not in host_reservation and instance_reservation["amount"] == 2
    sim.clock.advance(START_OF_LEASE - sim.clock.now() + 60)
    seen = sim.provider.observe(LEASE, [lease.physical_id])[lease.physical_id]
    assert seen.attributes["status"] == "ACTIVE" and seen.attributes["reservations"][0]["status"] == "active"
    with pytest.raises(Permanent, match="already exists with other dates"):
        sim.provider.create(LEASE, {**LEASE_PROPERTIES, "end_date": "2031-01-01 10:00"}, marker("other"))


def test_a_host_the_cloud_does_not_have_is_refused_by_name(sim: CloudUnderTest) -> None:
    with pytest.raises(Permanent, match="HTTP 404: Host 'compute-9' not found"):
        sim.provider.create(HOST, {"name": "compute-9"}, marker("host"))


def test_an_external_resource_is_the_execution_of_its_create_workflow(start_cloud: StartCloud) -> None:
    sim = start_cloud(CloudSettings(time_to_active=30.0))
    workflow = sim.provider.create(
        WORKFLOW,
        {
            "type": "direct",
            "tasks": [{"name": "hello", "action": "std.echo output=x", "publish": {"result": "Bye"}}],
        },
        marker("workflow"),
    )
    external = marker("external")
    properties = {"actions": {"CREATE": {"workflow": workflow.physical_id, "params": {}}}, "input": {"n": 1}}

    started = sim.provider.create("OS::Mistral::ExternalResource", properties, external)
    sim.clock.advance(30)
    done = sim.provider.observe("OS::Mistral::ExternalResource", [started.physical_id])[started.physical_id]

    assert started.status.value == "IN_PROGRESS" and done.status.value == "READY"
    assert done.attributes["output"] == {"n": 1, "result": "Bye"}
    (execution,) = sim.provider.observe(WORKFLOW, [workflow.physical_id])[workflow.physical_id].attributes[
        "executions"
    ]
    assert (execution["id"], execution["state"], execution["input"]) == (
        started.physical_id,
        "SUCCESS",
        {"n": 1},
    )
    found = sim.provider.find_by_marker("OS::Mistral::ExternalResource", external)
    assert found is not None and found.physical_id == started.physical_id
    sim.provider.delete("OS::Mistral::ExternalResource", started.physical_id)
    assert sim.cloud.count("executions") == 0


def test_a_subscription_without_a_ttl_takes_heats_default(sim: CloudUnderTest) -> None:
    sim.provider.create("OS::Zaqar::Queue", {"name": "q"}, marker("queue"))

    made = sim.provider.create(
        SUBSCRIPTION, {"queue_name": "q", "subscriber": "mailto:ops@example.org"}, marker("s")
    )

    assert made.properties["ttl"] == 220367260800
