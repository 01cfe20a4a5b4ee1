"""Scenario: a noisy cloud (errors, quotas, builds that never finish) and a worker that dies mid-call."""

from __future__ import annotations

from pathlib import Path

from providers.simulated.faults import CallFault, Faults
from providers.simulated.settings import CloudSettings
from reconciler.engine import StackStatus
from tests.engine.templates import servers
from tests.engine.world import World

NAMES = ["a", "b", "c", "d", "e", "f", "g", "h"]


def test_ten_percent_of_calls_failing_still_converges_without_duplicates(
    tmp_path: Path, database_url: str
) -> None:
    faults = Faults(
        error_rate=0.1, kinds=(CallFault.SERVER_ERROR, CallFault.TIMEOUT, CallFault.LOST_RESPONSE)
    )
    world = World(tmp_path, database_url, faults=faults, cloud=CloudSettings(time_to_active=5.0))
    world.commit({"stack.yaml": servers(NAMES)})
    world.submit("app", "stack.yaml")

    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(server["name"] for server in world.live("servers")) == NAMES
    assert len(world.live("ports")) == len(NAMES)  # lost responses were adopted by marker, not repeated
    world.close()


def test_a_quota_error_fails_that_resource_with_the_clouds_message(tmp_path: Path, database_url: str) -> None:
    world = World(tmp_path, database_url, cloud=CloudSettings(quotas={"servers": 2}))
    world.commit({"stack.yaml": servers(["a", "b", "c"])})
    world.submit("app", "stack.yaml")

    report = world.converge("app")["app"]

    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert failure.resource in {"a", "b", "c"} and "uota" in failure.reason
    assert len(world.live("servers")) == 2
    world.close()


HIDDEN_FLAVOR = """heat_template_version: 2018-08-31
parameters:
  flavor: {type: string, hidden: true}
resources:
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: {get_param: flavor}}
"""


def test_a_cloud_message_quoting_a_hidden_parameter_is_stored_masked(
    tmp_path: Path, database_url: str
) -> None:
    """Given a hidden parameter the cloud quotes back in its refusal; then neither the report, the
    stack's stored reasons nor the resource record carry its value."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": HIDDEN_FLAVOR})
    world.submit("app", "stack.yaml", {"flavor": "s3cret-flavor"})

    report = world.converge("app")["app"]

    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert "could not be found" in failure.reason and "s3cret" not in failure.reason
    stored = world.store.read_stack("app")
    assert stored is not None and stored.reasons and not any("s3cret" in reason for reason in stored.reasons)
    assert "s3cret" not in str(world.records("app")["web"].last_error)
    world.close()


HIDDEN_FLAVOR_LIST = """heat_template_version: 2018-08-31
parameters:
  flavors: {type: comma_delimited_list, hidden: true}
resources:
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: {get_param: [flavors, 0]}}
"""


def test_an_item_of_a_hidden_list_parameter_quoted_by_the_cloud_is_stored_masked(
    tmp_path: Path, database_url: str
) -> None:
    """Given a hidden list parameter one item of which the cloud quotes back alone; then the stored
    failure masks that item, by the same rule notes are redacted with."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": HIDDEN_FLAVOR_LIST})
    world.submit("app", "stack.yaml", {"flavors": "s3cret-flavor,m1.small"})

    report = world.converge("app")["app"]

    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert "could not be found" in failure.reason and "s3cret" not in failure.reason
    assert "s3cret" not in str(world.records("app")["web"].last_error)
    world.close()


def test_a_server_stuck_in_build_is_replaced_past_its_deadline(tmp_path: Path, database_url: str) -> None:
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=10.0))
    world.commit({"stack.yaml": servers(["web"])})
    world.submit("app", "stack.yaml")
    world.step_until(lambda: len(world.live("servers")) == 1)
    (stuck,) = world.live("servers")
    world.cloud.hold_in_build("servers", str(stuck["id"]))

    report = world.converge("app")["app"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (server,) = world.live("servers")
    assert server["id"] != stuck["id"] and server["status"] == "ACTIVE"
    world.close()


def test_a_worker_killed_between_create_and_record_is_taken_over_without_duplicates(
    tmp_path: Path, database_url: str
) -> None:
    """Given worker A whose create calls reached the cloud but whose results were never recorded;
    when its lease expires and worker B takes the stack over; then B adopts by marker: no duplicate."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": servers(["web"])})
    world.submit("app", "stack.yaml")
    world.step_until(lambda: len(world.live("servers")) == 1)  # A's last pass dispatched the create
    worker_a = world.engine
    worker_a.wait_for_calls()
    assert world.records("app")["web"].physical_id is None  # created in the cloud, not recorded

    report = world.take_over("app", "stack.yaml")  # A is gone: no pass, no renewal

    assert report.status is StackStatus.CONVERGED, report.failures
    (server,) = world.live("servers")
    assert world.records("app")["web"].physical_id == server["id"]
    records_after_takeover = world.records("app")
    worker_a.step()  # A wakes up: its lease is gone, it writes nothing
    assert world.records("app") == records_after_takeover
    worker_a.close()
    world.close()


def test_a_worker_that_lost_its_lease_sends_no_create(tmp_path: Path, database_url: str) -> None:
    """Given worker A about to create a server, whose lease expired and went to worker B before A's
    next pass; when A runs that pass; then its intent write is refused and no create leaves it."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": servers(["web"])})
    worker_a = world.engine
    world.clock.sleep(world.store.settings.lease_seconds + 1)
    worker_b = world.start_worker("worker-b")
    worker_b.step()  # B takes every shard over

    world.engine = worker_a
    world.submit("app", "stack.yaml")
    worker_a.step()
    worker_a.wait_for_calls()

    assert world.live("servers") == []
    assert world.records("app") == {}
    worker_a.close()
    worker_b.close()
    world.store.close()


LONE_SERVER = """heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
"""


def test_a_server_building_while_every_list_call_fails_is_given_up_on_at_its_deadline(
    tmp_path: Path, database_url: str
) -> None:
    """Given a server stuck in BUILD while the cloud answers every list call with a 500; when its ready
    deadline passes with no observation ever succeeding; then it is treated as stuck (replaced), not
    waited for forever; once the cloud lists again the stack converges on the new server."""
    world = World(tmp_path, database_url, cloud=CloudSettings(time_to_active=10.0))
    world.commit({"stack.yaml": LONE_SERVER})
    world.submit("app", "stack.yaml")
    world.step_until(lambda: len(world.live("servers")) == 1)
    (stuck,) = world.live("servers")
    world.cloud.hold_in_build("servers", str(stuck["id"]))
    world.cloud.faults.faults = Faults(
        error_rate=1.0, kinds=(CallFault.SERVER_ERROR,), operations=frozenset({"list"})
    )

    world.pass_time(world.settings.ready_deadline + 10.0)

    (given_up,) = [record for record in world.store.read_records("app") if record.physical_id == stuck["id"]]
    assert given_up.status == "RETIRED"
    assert "deadline" in str(given_up.last_error) and "Unexpected API Error" in str(given_up.last_error)
    world.cloud.faults.faults = Faults()
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    (server,) = world.live("servers")
    assert server["id"] != stuck["id"] and server["status"] == "ACTIVE"
    world.close()


SERVER_AND_LABEL = """heat_template_version: 2018-08-31
resources:
  web:
    type: OS::Nova::Server
    properties: {name: web, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  label:
    type: OS::Heat::Value
    properties: {value: web}
"""

ONLY_THE_LABEL = """heat_template_version: 2018-08-31
resources:
  label:
    type: OS::Heat::Value
    properties: {value: web}
"""


def test_a_delete_the_cloud_refuses_is_reported_and_backed_off(tmp_path: Path, database_url: str) -> None:
    """Given a server leaving the template while the cloud's policy refuses every delete (403); then
    the refusal is reported with the cloud's message and the delete is sent again only after a
    growing back-off, not on every pass; once the policy allows it, the server goes."""
    world = World(tmp_path, database_url)
    world.commit({"stack.yaml": SERVER_AND_LABEL})
    world.submit("app", "stack.yaml")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    world.cloud.faults.faults = Faults.parse("error_rate=1,kinds=403,operations=delete")
    world.commit({"stack.yaml": ONLY_THE_LABEL})
    world.submit("app", "stack.yaml")

    passes = 120
    world.pass_time(float(passes))

    report = world.engine.report("app")
    (failure,) = report.failures
    assert failure.reason.startswith("delete failed") and "Policy does not allow" in failure.reason
    stored = world.store.read_stack("app")
    assert stored is not None and any("Policy does not allow" in reason for reason in stored.reasons)
    assert len(world.live("servers")) == 1
    assert 2 <= world.cloud.refused["delete"] <= 10 < passes  # exponential back-off, not once a pass

    world.cloud.faults.faults = Faults()
    report = world.converge("app")["app"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.live("servers") == []
    world.close()
