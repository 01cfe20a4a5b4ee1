"""Every resource type a stack's tree would use, nested templates included, each with where it is
written: what a cloud must serve before anything of the stack is built.

Nested templates are bound without values (as load-time checking binds them), once per file; a
group's member type that is not a template counts as a use at the group. Locating a use in its
file costs a walk of the file's YAML, so it is done only for the uses a caller reports.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from reconciler.templates.binding import Binding, bind
from reconciler.templates.definition import ResourceDefinition, StackDefinition
from reconciler.templates.documents import Document
from reconciler.templates.environment import TEMPLATE_SUFFIXES
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.instance_groups import MEMBER_TYPE
from reconciler.templates.nested_checks import nested_template_files


@dataclass(frozen=True)
class TypeUse:
    """One resource declaring `type`: its path from the root stack (`nodes.server` for a resource
    of a group's member template) and the file it is written in."""

    type: str
    resource: str
    file: str
    document: Document
    written_at: tuple[str, ...]

    def problem(self, message: str) -> Problem:
        """A problem about this use, located at the resource's `type` in its file."""
        return self.document.problem(self.written_at, message)


def type_uses(definition: StackDefinition) -> Iterator[TypeUse]:
    """Every type the stack's tree uses, in template order, nested templates after their owner."""
    yield from _uses(definition, "", set())


def _uses(definition: StackDefinition, prefix: str, seen: set[str]) -> Iterator[TypeUse]:
    context = definition.context
    document = context.model(definition.template_path).document
    for resource in definition.resources.values():
        path = f"{prefix}{resource.name}"
        where = ("resources", resource.name, "type")
        if resource.nested_kind is None:
            yield TypeUse(resource.type, path, definition.template_path, document, where)
            continue
        for member_type in _plain_member_types(definition, resource):
            yield TypeUse(member_type, path, definition.template_path, document, where)
        try:
            files = nested_template_files(definition, resource)
        except TemplateError:
            continue  # load-time checks name what is wrong with it
        for template_file in files:
            if template_file in seen:
                continue
            seen.add(template_file)
            try:
                nested = bind(context.model(template_file), context, Binding(values={}, top_level=False))
            except TemplateError:
                continue
            yield from _uses(nested, f"{path}.", seen)


def _plain_member_types(definition: StackDefinition, resource: ResourceDefinition) -> Iterator[str]:
    """The types a group or chain makes its members of, where those are no templates (after the
    environment's resource registry)."""
    raw = resource.properties if isinstance(resource.properties, Mapping) else {}
    written: list[object] = []
    if resource.nested_kind in ("group", "autoscaling"):
        member = raw.get("resource_def" if resource.nested_kind == "group" else "resource")
        if isinstance(member, Mapping):
            written.append(member.get("type"))
    elif resource.nested_kind == "chain" and isinstance(raw.get("resources"), list):
        written.extend(raw["resources"])
    elif resource.nested_kind == "instancegroup":
        written.append(MEMBER_TYPE)
    registry = definition.context.environment.registry
    for index, item in enumerate(written):
        if not isinstance(item, str) or item.endswith(TEMPLATE_SUFFIXES) or "::" not in item:
            continue
        mapped = registry.resolve(str(index), item)
        if not mapped.problem and not mapped.is_file:
            yield mapped.target
