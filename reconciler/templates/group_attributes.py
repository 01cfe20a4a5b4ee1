"""Attributes of resources that own nested stacks, as Heat defines them (pure functions).

Groups (OS::Heat::ResourceGroup, AutoScalingGroup, InstanceGroup, ResourceChain):
- `refs`: the members' physical ids, in member order; `refs_map`: member name -> physical id;
- `removed_rsrc_list`: members removed by removal policies; `current_size`: the member count;
- `resource.N`: member N's physical id; `resource.N.attr`: that member's attribute `attr`;
- `attributes`: member name -> that member's attributes (get_attr's path picks one per member);
- `outputs` / `outputs_list` (AutoScalingGroup): members' outputs, as a map / a list;
- `InstanceList` (InstanceGroup): the members' PublicIp, joined by commas;
- any other name: the list of every member's value of that attribute (get_attr's path applies to
  each member's value).
Template resources: `OS::stack_id` is the nested stack's id, any other name an output of it.

The engine computes a group's or a template resource's attribute with `nested_attribute` from the
members' values, and `get_attr` applies its path with `select_group_path`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from reconciler.templates.definition import ResourceDefinition
from reconciler.templates.errors import FunctionError

GROUP_KINDS = frozenset({"group", "autoscaling", "chain", "instancegroup"})
WHOLE_VALUE_NAMES = frozenset({"refs", "refs_map", "removed_rsrc_list", "current_size"})
PER_KEY_NAMES = frozenset({"attributes", "outputs"})
STACK_ID_OUTPUT = "OS::stack_id"
# Heat answers these from the group's own data and applies no get_attr path to them
PATH_IGNORED_NAMES = frozenset({"refs_map", "removed_rsrc_list"})


@dataclass(frozen=True)
class MemberValues:
    """What is known of one member (or of a template resource's nested stack)."""

    physical_id: str | None
    attributes: Mapping[str, Any] = field(default_factory=dict)  # a nested stack: its outputs

    @property
    def reference(self) -> Any:
        """What `get_resource` gives for it: a template resource's `OS::stack_id` output, if it has one."""
        if STACK_ID_OUTPUT in self.attributes:
            return self.attributes[STACK_ID_OUTPUT]
        return self.physical_id


def nested_attribute(
    resource: ResourceDefinition,
    members: Mapping[str, MemberValues],
    name: str,
    path: Sequence[Any] = (),
    *,
    removed: Sequence[str] = (),
) -> Any:
    """The attribute `name` of a group or template resource, given its members' values, then `path`."""
    from reconciler.templates.functions_references import select_from_attribute

    if resource.nested_kind == "stack":
        return select_from_attribute(_remote_stack_value(resource, members, name), list(path))
    if resource.nested_kind == "template":
        stack = next(iter(members.values()), MemberValues(None))
        if name == "OS::stack_id":
            return select_from_attribute(stack.physical_id, list(path))
        if name not in stack.attributes:
            raise FunctionError(f"The Referenced Attribute ({resource.name} {name}) is incorrect.")
        return select_from_attribute(stack.attributes[name], list(path))
    if resource.nested_kind not in GROUP_KINDS:
        raise FunctionError(f"{resource.name} ({resource.type}) has no nested stack attributes")
    value = _group_value(members, name, removed)
    return select_group_path(name, value, path) if path else value


def _remote_stack_value(resource: ResourceDefinition, members: Mapping[str, MemberValues], name: str) -> Any:
    """OS::Heat::Stack's attributes: `outputs` (every output of its stack) and `stack_name`."""
    stack = next(iter(members.values()), MemberValues(None))
    if name == "outputs":
        return dict(stack.attributes)
    if name in ("stack_name", "OS::stack_id"):
        return stack.physical_id
    raise FunctionError(f"The Referenced Attribute ({resource.name} {name}) is incorrect.")


def _group_value(  # noqa: PLR0911 - one answer per attribute Heat defines
    members: Mapping[str, MemberValues], name: str, removed: Sequence[str]
) -> Any:
    if name == "refs":
        return [member.reference for member in members.values()]
    if name == "refs_map":
        return {member_name: member.reference for member_name, member in members.items()}
    if name == "removed_rsrc_list":
        return list(removed)
    if name == "current_size":
        return len(members)
    if name.startswith("resource."):
        _, _, rest = name.partition(".")
        member_name, _, attribute = rest.partition(".")
        if member_name not in members:
            raise FunctionError(f"Member '{member_name}' not found in group resource.")
        member = members[member_name]
        return member.reference if not attribute else member.attributes.get(attribute)
    if name in PER_KEY_NAMES:
        return {member_name: dict(member.attributes) for member_name, member in members.items()}
    if name == "outputs_list":
        return [dict(member.attributes) for member in members.values()]
    if name == "InstanceList":
        return ",".join(str(member.attributes.get("PublicIp") or "") for member in members.values())
    return [member.attributes.get(name) for member in members.values()]


def member_reference_path(name: str, path: Sequence[Any]) -> tuple[str, Sequence[Any]]:
    """`[group, resource.N, attr, ...]` is member N's attribute `attr` (as `resource.N.attr`), not a
    path into member N's reference; any other name and path stay as they are."""
    if path and name.startswith("resource.") and name.count(".") == 1:
        return f"{name}.{path[0]}", path[1:]
    return name, path


def select_group_path(name: str, value: Any, path: Sequence[Any]) -> Any:
    """Apply a get_attr path to a group attribute value, per member where Heat does."""
    from reconciler.templates.functions_references import select_from_attribute

    if name == "attributes" and not path:
        raise FunctionError("The Referenced Attribute (attributes) is incorrect: it needs an attribute name")
    if not path or value is None or name in PATH_IGNORED_NAMES:
        return value
    if name in WHOLE_VALUE_NAMES or name.startswith("resource."):
        return select_from_attribute(value, list(path))
    if name in PER_KEY_NAMES and isinstance(value, Mapping):
        return {key: select_from_attribute(item, list(path)) for key, item in value.items()}
    if isinstance(value, list):
        return [select_from_attribute(item, list(path)) for item in value]
    return select_from_attribute(value, list(path))
