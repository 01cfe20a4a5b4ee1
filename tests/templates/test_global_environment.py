"""Heat's global environment, loaded under every stack's own: old type names become served ones
unless the stack's environment maps them itself."""

from __future__ import annotations

import pytest
import yaml

from reconciler.templates import MemorySource, load_stack

ALARM = {"meter_name": "cpu_util", "threshold": 50, "comparison_operator": "gt"}


@pytest.mark.parametrize(
    ("written", "effective"),
    [
        ("OS::Ceilometer::Alarm", "OS::Aodh::Alarm"),
        ("OS::Metering::Alarm", "OS::Aodh::Alarm"),
        ("OS::Quantum::Net", "OS::Neutron::Net"),
    ],
)
def test_old_names_are_the_types_heat_maps_them_to(written: str, effective: str) -> None:
    properties = ALARM if "Alarm" in written else {}
    template = {
        "heat_template_version": "2015-04-30",
        "resources": {"r": {"type": written, "properties": properties}},
    }
    definition = load_stack(MemorySource({"t.yaml": yaml.safe_dump(template)}), "t.yaml")

    assert definition.resources["r"].type == effective
    assert definition.resources["r"].written_type == written


def test_a_stacks_own_environment_maps_an_old_name_first() -> None:
    template = {"heat_template_version": "2015-04-30", "resources": {"r": {"type": "OS::Ceilometer::Alarm"}}}
    environment = {"resource_registry": {"OS::Ceilometer::Alarm": "OS::Heat::None"}}
    files = {"t.yaml": yaml.safe_dump(template), "env.yaml": yaml.safe_dump(environment)}

    definition = load_stack(MemorySource(files), "t.yaml", ["env.yaml"])

    assert definition.resources["r"].type == "OS::Heat::None"
