"""Scenario: the corpus's Designate templates (the v1 Domain and Record names) converge on the
simulated cloud, and a record set deleted by hand comes back."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

DOMAIN_AND_RECORD = """
heat_template_version: 2015-04-30
resources:
  sample_domain:
    type: OS::Designate::Domain
    properties: {name: designate-example.com., email: admin@designate-example.com}
  sample_record:
    type: OS::Designate::Record
    properties:
      name: test.designate-example.com.
      type: MX
      data: sample.mailserver.com.
      domain: {get_resource: sample_domain}
      ttl: 3600
      priority: 10
  www:
    type: OS::Designate::RecordSet
    properties:
      zone: {get_resource: sample_domain}
      name: www.designate-example.com.
      type: A
      records: [192.0.2.10]
outputs:
  serial: {value: {get_attr: [sample_domain, serial]}}
"""


def test_a_domain_and_its_records_converge_and_a_deleted_record_set_comes_back(
    tmp_path: Path, sqlite_url: str
) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": DOMAIN_AND_RECORD})
    world.submit("dns", "stack.yaml")

    report = world.converge("dns")["dns"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert isinstance(world.outputs("dns")["serial"], int)
    records = {item["name"]: item["records"] for item in world.live("recordsets")}
    assert records == {"test.designate-example.com.": ["10 sample.mailserver.com."],
                       "www.designate-example.com.": ["192.0.2.10"]}  # fmt: skip

    (www,) = [item for item in world.live("recordsets") if item["type"] == "A"]
    world.cloud.vanish("recordsets", www["id"])
    report = world.pass_time(OBSERVE_INTERVAL + 1, "dns")["dns"]

    assert report.status is StackStatus.CONVERGED, report.failures
    assert sorted(item["type"] for item in world.live("recordsets")) == ["A", "MX"]
    world.close()
