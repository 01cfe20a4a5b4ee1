"""OS::Heat::InstanceGroup: members made from the launch configuration its stack holds, as Heat
makes them."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from reconciler.templates import (
    MemberValues,
    MemorySource,
    StackDefinition,
    TemplateError,
    load_stack,
    nested_attribute,
)

from .snippets import ReadyCloud

CONFIG = {"ImageId": "cirros", "InstanceType": "m1.small", "KeyName": "key", "UserData": "#!/bin/sh"}
TAGS = [{"Key": "tier", "Value": "web"}]


def template(reference: Any, size: int = 2) -> dict[str, Any]:
    group = {"LaunchConfigurationName": reference, "AvailabilityZones": [], "Size": size, "Tags": TAGS}
    return {
        "heat_template_version": "2013-05-23",
        "resources": {
            "group": {"type": "OS::Heat::InstanceGroup", "properties": group},
            "config": {"type": "AWS::AutoScaling::LaunchConfiguration", "properties": CONFIG},
        },
    }


def load(document: dict[str, Any]) -> StackDefinition:
    return load_stack(MemorySource({"stack.yaml": yaml.safe_dump(document)}), "stack.yaml")


@pytest.mark.parametrize("reference", [{"get_resource": "config"}, {"Ref": "config"}])
def test_members_are_instances_with_the_launch_configurations_properties_and_the_groups_tags(
    reference: dict[str, str],
) -> None:
    definition = load(template(reference))

    group = definition.nested("group", definition.resolve_properties("group", ReadyCloud()))

    assert group is not None and list(group.resources) == ["0", "1"]
    member = group.resources["1"]
    assert member.type == "AWS::EC2::Instance"
    assert member.properties == {**CONFIG, "Tags": TAGS}
    assert definition.resources["group"].depends_on == {"config"}


@pytest.mark.parametrize("reference", ["config", {"get_param": "OS::stack_name"}])
def test_a_group_not_naming_its_stacks_launch_configuration_is_refused(reference: Any) -> None:
    with pytest.raises(TemplateError, match="must name an AWS::AutoScaling::LaunchConfiguration"):
        load(template(reference))


def test_the_instance_list_joins_the_members_public_addresses() -> None:
    definition = load(template({"get_resource": "config"}))
    members = {
        "0": MemberValues("a", {"PublicIp": "10.0.0.3"}),
        "1": MemberValues("b", {"PublicIp": "10.0.0.4"}),
    }

    assert nested_attribute(definition.resources["group"], members, "InstanceList") == "10.0.0.3,10.0.0.4"
