"""A metered cloud (as `reconciler run` uses) still says its regions and its catalog: a remote stack in
a region it does not have, or a type whose service the catalog lacks, is refused through it as
through the cloud."""

from __future__ import annotations

import random
from pathlib import Path

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from reconciler.daemon.metered_clouds import CallMeter, MeteredProviderSet
from reconciler.engine.preflight import preflight_problems
from reconciler.engine.provider_set import ProviderSet
from reconciler.templates import DirectorySource, load_stack
from tests.engine.test_preflight_services import TEMPLATE as NEEDS_MONITORING
from tests.engine.test_preflight_services import CloudWithout

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  far:
    type: OS::Heat::Stack
    properties:
      context: {region_name: RegionTwo}
      template: {get_file: inner.yaml}
"""
INNER = "heat_template_version: 2018-08-31\nresources:\n  net: {type: OS::Neutron::Net}\n"


def test_a_metered_cloud_refuses_another_region_as_the_cloud_does(tmp_path: Path) -> None:
    (tmp_path / "stack.yaml").write_text(TEMPLATE)
    (tmp_path / "inner.yaml").write_text(INNER)
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml")
    plain = ProviderSet([SimulatedProvider(SimulatedCloud(random_source=random.Random(1)))])

    problems = [
        str(problem)
        for problem in preflight_problems(definition, MeteredProviderSet(plain, CallMeter()), "sim")
    ]

    assert len(problems) == 1
    assert "stack.yaml:6" in problems[0]
    assert "context.region_name 'RegionTwo' is not a region of cloud 'sim' (it has RegionOne)" in problems[0]


def test_a_metered_cloud_names_a_service_its_catalog_lacks(tmp_path: Path) -> None:
    (tmp_path / "stack.yaml").write_text(NEEDS_MONITORING)
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml")
    metered = MeteredProviderSet(ProviderSet([CloudWithout(frozenset({"monitoring"}))]), CallMeter())

    problems = [str(problem) for problem in preflight_problems(definition, metered, "edge")]

    assert problems == [problems[0]]
    assert "the cloud 'edge' has no monitoring service (needed by hook, alert)" in problems[0]
