"""Scenario: a Zaqar queue converges, its metadata changes in place, and a queue deleted by hand is
made again."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

QUEUE = """
heat_template_version: 2015-04-30
parameters:
  ttl: {type: number, default: 60}
resources:
  queue:
    type: OS::Zaqar::Queue
    properties:
      name: jobs
      metadata: {_default_message_ttl: {get_param: ttl}}
outputs:
  href: {value: {get_attr: [queue, href]}}
"""


def test_a_queue_converges_changes_in_place_and_comes_back(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": QUEUE})
    world.submit("queues", "stack.yaml")
    report = world.converge("queues")["queues"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.outputs("queues")["href"].endswith("/queues/jobs")

    world.submit("queues", "stack.yaml", {"ttl": 120})
    report = world.converge("queues")["queues"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert (report.counts.updated, report.counts.replaced) == (1, 0)
    assert world.cloud.get("queues", "jobs")["metadata"]["_default_message_ttl"] == 120

    world.cloud.vanish("queues", "jobs")
    report = world.pass_time(OBSERVE_INTERVAL + 1, "queues")["queues"]
    assert report.status is StackStatus.CONVERGED, report.failures
    assert world.cloud.get("queues", "jobs")["metadata"]["_default_message_ttl"] == 120
    world.close()
