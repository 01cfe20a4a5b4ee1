"""A stack needing a service the cloud's catalog does not list is refused before anything is built,
with the service and the resources needing it named."""

from __future__ import annotations

import random
from pathlib import Path

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from reconciler.engine.preflight import preflight_problems
from reconciler.engine.provider_set import ProviderSet
from reconciler.templates import DirectorySource, load_stack

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  hook:
    type: OS::Monasca::Notification
    properties: {type: webhook, address: "http://hooks.example.org/"}
  alert:
    type: OS::Monasca::AlarmDefinition
    properties: {expression: "avg(cpu.user_perc) > 90", alarm_actions: [{get_resource: hook}]}
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
"""


class CloudWithout(SimulatedProvider):
    """The simulated cloud as a cloud whose catalog lacks some services."""

    def __init__(self, missing: frozenset[str]) -> None:
        super().__init__(SimulatedCloud(random_source=random.Random(1)))
        self._missing = missing

    def service_types(self) -> frozenset[str]:
        return super().service_types() - self._missing


def _problems(tmp_path: Path, missing: frozenset[str]) -> list[str]:
    (tmp_path / "stack.yaml").write_text(TEMPLATE)
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml")
    providers = ProviderSet([CloudWithout(missing)])
    return [str(problem) for problem in preflight_problems(definition, providers, "edge")]


def test_a_missing_service_is_named_with_every_resource_needing_it(tmp_path: Path) -> None:
    problems = _problems(tmp_path, frozenset({"monitoring"}))

    assert len(problems) == 1
    assert "stack.yaml:4" in problems[0]
    assert "the cloud 'edge' has no monitoring service (needed by hook, alert)" in problems[0]


def test_a_cloud_offering_every_service_needed_raises_nothing(tmp_path: Path) -> None:
    assert _problems(tmp_path, frozenset({"dns"})) == []
