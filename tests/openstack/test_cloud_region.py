"""A cloud reached through openstacksdk says the region its clouds.yaml entry names and the regions
it has (those its catalog lists that the entry allows), so a remote stack's `context.region_name`
is checked against where the calls can really go; another region is reached with the SDK's own
`region_name` on the same entry."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from providers.openstack import OpenStackProvider
from providers.simulated.settings import CloudSettings
from reconciler.engine.preflight import preflight_problems
from reconciler.engine.provider_set import ProviderSet
from reconciler.templates import DirectorySource, load_stack
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest, StartCloud

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
        "OS::Heat::Stack far: context.region_name 'RegionTwo' is not a region of cloud 'edge' "
        "(it has RegionOne)" in refusal
    )


def test_every_region_of_the_catalog_is_reachable_through_the_same_entry(
    tmp_path: Path, start_cloud: StartCloud
) -> None:
    sim = start_cloud(settings=CloudSettings(regions=("RegionTwo",)))
    assert sim.provider.region_names() == {"RegionOne", "RegionTwo"}
    assert _refusals(tmp_path, sim, "RegionTwo") == []

    far = OpenStackProvider.from_cloud(CLOUD_NAME, region_name="RegionTwo")
    try:
        network = far.connection.network.create_network(name="far-net")
        assert far.region_name() == "RegionTwo"
        assert [n.name for n in far.connection.network.networks(name="far-net")] == ["far-net"]
        assert list(sim.provider.connection.network.networks(name="far-net")) == []
        assert network.id in {body["id"] for body in sim.cloud.in_region("RegionTwo").items("networks")}
    finally:
        far.connection.close()


def test_a_region_the_clouds_yaml_entry_does_not_allow_is_not_one_the_cloud_has(
    tmp_path: Path, start_cloud: StartCloud, monkeypatch: pytest.MonkeyPatch
) -> None:
    start_cloud(settings=CloudSettings(regions=("RegionTwo",)))
    entry = yaml.safe_load(Path(os.environ["OS_CLIENT_CONFIG_FILE"]).read_text())["clouds"][CLOUD_NAME]
    del entry["regions"]
    entry["region_name"] = "RegionOne"  # as a user's entry naming its one region reads
    narrowed = tmp_path / "one-region.yaml"
    narrowed.write_text(yaml.safe_dump({"clouds": {CLOUD_NAME: entry}}))
    monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(narrowed))

    provider = OpenStackProvider.from_cloud(CLOUD_NAME)
    try:
        assert provider.region_names() == {"RegionOne"}
    finally:
        provider.connection.close()
