"""OS::Heat::InstanceGroup: Heat's older group, of AWS::EC2::Instance members made from the
properties of an AWS::AutoScaling::LaunchConfiguration of the same stack.

Heat finds the launch configuration by the reference in `LaunchConfigurationName` and gives every
member its properties (those an instance has), with the group's `Tags`. Here the binding puts the
launch configuration's parsed properties beside the group's own, under `LAUNCH_CONFIGURATION` (a
name Heat's schema does not have, left out of validation), so they resolve with the group's and a
change of them is a change of the group: its members are updated, as Heat rolls them.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Any

from reconciler.templates.definition import ResourceDefinition
from reconciler.templates.nodes import Call

INSTANCE_GROUP = "OS::Heat::InstanceGroup"
LAUNCH_CONFIGURATION_TYPE = "AWS::AutoScaling::LaunchConfiguration"
LAUNCH_CONFIGURATION = "LaunchConfiguration"
MEMBER_TYPE = "AWS::EC2::Instance"
INSTANCE_PROPERTIES = ("ImageId", "InstanceType", "KeyName", "UserData", "SecurityGroups", "KernelId",
                       "RamDiskId", "BlockDeviceMappings", "NovaSchedulerHints")  # fmt: skip


def referenced_launch_configuration(parsed: Any) -> str | None:
    """The resource `LaunchConfigurationName` names with get_resource (Ref), if it names one so."""
    reference = parsed.get("LaunchConfigurationName") if isinstance(parsed, Mapping) else None
    if (
        type(reference) is Call
        and reference.name in ("get_resource", "Ref")
        and isinstance(reference.args, str)
    ):
        return reference.args
    return None


def with_launch_configurations(
    resources: Mapping[str, ResourceDefinition], parsed_properties: MutableMapping[str, Any]
) -> None:
    """Every instance group's parsed properties with its launch configuration's beside them."""
    for name, resource in resources.items():
        if resource.nested_kind != "instancegroup":
            continue
        parsed = parsed_properties.get(name)
        target = referenced_launch_configuration(parsed)
        found = resources.get(target) if target is not None else None
        if found is not None and found.type == LAUNCH_CONFIGURATION_TYPE and isinstance(parsed, Mapping):
            parsed_properties[name] = {
                **parsed,
                LAUNCH_CONFIGURATION: parsed_properties.get(found.name) or {},
            }


def without_launch_configuration(parsed: Any) -> Any:
    """The group's own properties, as its template wrote them (what Heat's schema validates)."""
    if isinstance(parsed, Mapping) and LAUNCH_CONFIGURATION in parsed:
        return {key: value for key, value in parsed.items() if key != LAUNCH_CONFIGURATION}
    return parsed


def member_properties(properties: Mapping[str, Any]) -> dict[str, Any]:
    """A member instance's properties: the launch configuration's an instance has, the group's Tags."""
    launch = properties.get(LAUNCH_CONFIGURATION) or {}
    member = {key: launch[key] for key in INSTANCE_PROPERTIES if launch.get(key) is not None}
    if properties.get("Tags"):
        member["Tags"] = properties["Tags"]
    return member
