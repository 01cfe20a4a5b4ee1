"""Scenario: a stack of a Mistral workflow with its cron trigger, a Zun container and a Blazar
lease converges on the simulated cloud; a container deleted by hand is made again, and a workflow
whose definition was changed by hand is put back."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

STACK = """
heat_template_version: 2018-08-31
parameters:
  pattern: {type: string, default: "0 * * * *"}
resources:
  net:
    type: OS::Neutron::Net
    properties: {name: private}
  subnet:
    type: OS::Neutron::Subnet
    properties: {network: {get_resource: net}, cidr: 10.0.0.0/24}
  flow:
    type: OS::Mistral::Workflow
    properties:
      name: nightly
      type: direct
      input: {target: db}
      tasks:
        - {name: backup, action: std.echo output=backup, on_success: [notify]}
        - {name: notify, action: std.noop}
  trigger:
    type: OS::Mistral::CronTrigger
    properties:
      pattern: {get_param: pattern}
      workflow: {get_attr: [flow, data]}
  box:
    type: OS::Zun::Container
    depends_on: subnet
    properties:
      image: nginx:latest
      networks: [{network: {get_resource: net}}]
  host:
    type: OS::Blazar::Host
    properties: {name: compute-2}
  lease:
    type: OS::Blazar::Lease
    depends_on: host
    properties:
      name: weekend
      start_date: "2031-06-01 00:00"
      end_date: "2031-06-03 00:00"
      reservations: [{resource_type: "physical:host", min: 1, max: 1, hypervisor_properties: ""}]
outputs:
  next_run: {value: {get_attr: [trigger, next_execution_time]}}
  address: {value: {get_attr: [box, addresses, private, 0, addr]}}
  lease_status: {value: {get_attr: [lease, status]}}
"""


def test_workflow_services_converge_and_their_drift_is_repaired(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": STACK})
    world.submit("ops", "stack.yaml")
    report = world.converge("ops")["ops"]
    assert report.status is StackStatus.CONVERGED, report.failures
    outputs = world.outputs("ops")
    assert outputs["next_run"].endswith(":00:00") and outputs["address"].startswith("10.0.0.")
    assert outputs["lease_status"] == "PENDING"
    assert world.cloud.list("cron_triggers")[0]["workflow_input"] == {"target": "db"}

    (container,) = world.cloud.items("application_containers")
    world.cloud.vanish("application_containers", container["id"])
    (workflow,) = world.cloud.items("workflows")
    hand_made = "version: '2.0'\nnightly:\n  type: direct\n  tasks:\n    other: {action: std.noop}\n"
    world.cloud.change("workflows", workflow["id"], {"definition": hand_made})
    report = world.pass_time(OBSERVE_INTERVAL + 1, "ops")["ops"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.cloud.count("application_containers") == 1
    assert "backup" in world.cloud.items("workflows")[0]["definition"]

    world.submit("ops", "stack.yaml", {"pattern": "30 2 * * *"})
    report = world.converge("ops")["ops"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert (report.counts.replaced, report.counts.updated) == (1, 0)  # Mistral cannot change a trigger
    assert [trigger["pattern"] for trigger in world.cloud.items("cron_triggers")] == ["30 2 * * *"]
    world.close()
