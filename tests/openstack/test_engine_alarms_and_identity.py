"""Scenario: the engine converges Keystone's corpus template and a stack of alarms through the
OpenStack provider over HTTP; the alarms then call a real HTTP receiver when load rises, and an
alarm deleted behind the engine's back is made again.
"""

from __future__ import annotations

from pathlib import Path

from providers.simulated.alarm_evaluator import AlarmEvaluator
from providers.simulated.telemetry import Measure
from reconciler.engine import StackStatus
from tests.openstack.test_alarm_types import receiving
from tests.openstack.test_engine_scenario import EngineOnOpenStack, world

CORPUS_KEYSTONE = (
    Path(__file__).resolve().parents[3] / "shared" / "corpus" / "heat-templates-hot" / "keystone"
)

ALARMS = """
heat_template_version: 2018-08-31
parameters:
  action_url: {type: string}
  threshold: {type: number, default: 80}
  server_group: {type: string, default: web-group}
resources:
  cpu_alarm_high:
    type: OS::Aodh::GnocchiAggregationByResourcesAlarm
    properties:
      description: Scale up if CPU > 80%
      metric: cpu_util
      aggregation_method: mean
      granularity: 300
      evaluation_periods: 1
      threshold: {get_param: threshold}
      resource_type: instance
      comparison_operator: gt
      alarm_actions:
        - str_replace:
            template: trust+url
            params:
              url: {get_param: action_url}
      query:
        list_join:
          - ''
          - - {'=': {server_group: {get_param: server_group}}}
  stopped:
    type: OS::Aodh::EventAlarm
    properties:
      event_type: compute.instance.update
      query: [{field: traits.state, value: stopped, op: eq}]
      alarm_queues: [alarms]
outputs:
  alarm: {value: {get_resource: cpu_alarm_high}}
"""

__all__ = ["world"]


def test_alarms_converge_then_call_their_action_url_when_load_rises(world: EngineOnOpenStack) -> None:
    world.commit(ALARMS)
    with receiving() as receiver:
        report = world.converge({"action_url": f"{receiver.url}/scale-up"})
        assert report.status is StackStatus.CONVERGED, report.failures
        (alarm,) = [item for item in world.live("alarms") if item["type"].startswith("gnocchi")]
        assert alarm["gnocchi_aggregation_by_resources_threshold_rule"]["query"] == (
            '{"=": {"server_group": "web-group"}}'
        )
        for server in ("a", "b"):
            world.sim.cloud.telemetry.record(
                Measure(
                    server, "cpu_util", 97.0, world.clock.now(), "instance", {"server_group": "web-group"}
                )
            )
        AlarmEvaluator(world.sim.cloud).evaluate()

    assert [(body["alarm_id"], body["current"]) for body in receiver.bodies] == [(alarm["alarm_id"], "alarm")]
    assert receiver.paths == ["/scale-up"]

    world.sim.cloud.vanish("alarms", alarm["id"])
    report = world.pass_time(120)
    assert report.status is StackStatus.CONVERGED, report.failures
    assert len([item for item in world.live("alarms") if item["type"].startswith("gnocchi")]) == 1

    report = world.converge({"action_url": f"{receiver.url}/scale-up", "threshold": 90})
    assert report.status is StackStatus.CONVERGED, report.failures
    (moved,) = [item for item in world.live("alarms") if item["type"].startswith("gnocchi")]
    assert moved["gnocchi_aggregation_by_resources_threshold_rule"]["threshold"] == 90


def test_the_corpus_keystone_template_converges_and_updates(world: EngineOnOpenStack) -> None:
    world.commit((CORPUS_KEYSTONE / "keystone.yaml").read_text(encoding="utf-8"))
    report = world.converge()
    assert report.status is StackStatus.CONVERGED, report.failures
    (user,) = [item for item in world.live("users") if item["name"] == "test_user_a"]
    assert "password" not in user and user["email"] == "abc@xyz.com"
    assert (
        len([item for item in world.live("role_assignments") if item.get("user", {}).get("id") == user["id"]])
        == 2
    )
    assert [item["group_id"] for item in world.live("group_memberships") if item["user_id"] == user["id"]]

    world.commit((CORPUS_KEYSTONE / "keystone_updated.yaml").read_text(encoding="utf-8"))
    report = world.converge()
    assert report.status is StackStatus.CONVERGED, report.failures
    names = {item["name"] for item in world.live("projects")}
    assert {"test_project_a_updated", "test_project_b"} <= names
    (user,) = [item for item in world.live("users") if item.get("email") == "xyz@abc.com"]
    assert user["name"] == "test_user_a_updated" and user["enabled"] is False
