"""Scenario: the corpus's Monasca template's notifications and alarm definitions converge on the
simulated cloud, the definitions naming the notifications' ids, and a notification deleted by
hand comes back and is named again by the definition."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

MONITORING = """
heat_template_version: 2015-10-15
resources:
  up_notification:
    type: OS::Monasca::Notification
    properties: {type: webhook, address: "http://192.0.2.10/up"}
  cpu_alarm_high:
    type: OS::Monasca::AlarmDefinition
    properties:
      name: CPU utilization beyond 50 percent
      description: CPU utilization reached beyond 50 percent
      expression:
        str_replace:
          template: avg(cpu.utilization_perc{scale_group=scale_group_id}) > 50 times 3
          params: {scale_group_id: {get_param: "OS::stack_id"}}
      severity: high
      alarm_actions: [{get_resource: up_notification}]
"""


def test_definitions_name_their_notifications_and_a_deleted_notification_comes_back(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": MONITORING})
    world.submit("monitoring", "stack.yaml")

    report = world.converge("monitoring")["monitoring"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (notification,) = world.live("notification_methods")
    (definition,) = world.live("alarm_definitions")
    assert notification["type"] == "WEBHOOK" and definition["severity"] == "HIGH"
    assert definition["alarm_actions"] == [notification["id"]]

    world.cloud.vanish("notification_methods", notification["id"])
    world.pass_time(OBSERVE_INTERVAL + 1, "monitoring")
    report = world.converge("monitoring")["monitoring"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (again,) = world.live("notification_methods")
    assert again["id"] != notification["id"]
    assert world.live("alarm_definitions")[0]["alarm_actions"] == [again["id"]]
    world.close()
