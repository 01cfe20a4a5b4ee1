"""A cloud reached through openstacksdk says the region its clouds.yaml entry names, so a remote
stack's `context.region_name` is checked against the region the calls really go to."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine.preflight import preflight_problems
from reconciler.engine.provider_set import ProviderSet
from reconciler.templates import DirectorySource, load_stack
from tests.openstack.conftest import CloudUnderTest

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  region: {{type: string, default: {region}}}
resources:
  far:
    type: OS::Heat::Stack
    properties:
      context: {{region_name: {{get_param: region}}}}
      template: "heat_template_version: 2018-08-31"
"""


def _refusals(tmp_path: Path, sim: CloudUnderTest, region: str) -> list[str]:
    (tmp_path / "stack.yaml").write_text(TEMPLATE.format(region=region))
    definition = load_stack(DirectorySource(tmp_path), "stack.yaml")
    return [str(problem) for problem in preflight_problems(definition, ProviderSet([sim.provider]), "edge")]


def test_the_region_named_in_clouds_yaml_is_the_region_checked(tmp_path: Path, sim: CloudUnderTest) -> None:
    assert sim.provider.region_name() == "RegionOne"
    assert _refusals(tmp_path, sim, "RegionOne") == []
    (refusal,) = _refusals(tmp_path, sim, "RegionTwo")
    assert (
        "OS::Heat::Stack far: context.region_name 'RegionTwo' is not the region of cloud 'edge' (RegionOne)"
        in (refusal)
    )
