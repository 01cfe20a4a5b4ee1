"""One template file, read and checked once: its version, parameters, conditions, resources and
outputs parsed into call trees, with every problem found located in the file.

A model does not depend on parameter values; binding it to values (binding.py) gives a
`StackDefinition`. Models are cached per file, so a template used by a million group members, or
by many template resources, is read and checked once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from reconciler.templates.documents import Document, Path
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.nodes import Call, Parser, References, Where
from reconciler.templates.parameters import (
    ParameterSchema,
    ParameterValueError,
    check_constraints,
    parse_schema,
)
from reconciler.templates.parameters import typed_value as typed_parameter_value
from reconciler.templates.versions import TemplateVersion, known_version_names, version_named

DELETION_POLICIES = ("Delete", "Retain", "Snapshot")
LOWERCASE_POLICIES_SINCE = "2016-10-14"  # Heat accepts delete, retain and snapshot from then on
PSEUDO_PARAMETERS = (
    "OS::stack_name",
    "OS::stack_id",
    "OS::project_id",
    "AWS::StackName",
    "AWS::StackId",
    "AWS::Region",
)
CFN_VERSION_KEYS = ("AWSTemplateFormatVersion", "HeatTemplateFormatVersion")


class ResourceModel(NamedTuple):
    """A resource as written, with its snippets parsed (a named tuple: one per resource, and a
    frozen dataclass costs several times as much to build)."""

    name: str
    type: str
    raw: Mapping[str, Any]
    properties: Any
    metadata: Any
    update_policy: Any
    deletion_policy: Any
    external_id: Any
    condition: Any  # None (always), a bool, a condition name or a parsed expression
    depends_on: tuple[str, ...]
    references: References
    where: Where


# A ResourceModel from its fields in order, without the named tuple's Python-level __new__.
_new_resource_model = tuple.__new__


class OutputModel(NamedTuple):
    """An output as written, with its value parsed."""

    name: str
    raw: Any
    value: Any
    description: str | None
    condition: Any
    where: Where


@dataclass
class TemplateModel:
    """A checked template file."""

    document: Document
    version: TemplateVersion
    description: str | None = None
    parameters: dict[str, ParameterSchema] = field(default_factory=dict)
    parameter_groups: list[Any] = field(default_factory=list)
    conditions: dict[str, Any] = field(default_factory=dict)
    resources: dict[str, ResourceModel] = field(default_factory=dict)
    outputs: dict[str, OutputModel] = field(default_factory=dict)
    file_references: dict[str, Path] = field(default_factory=dict)  # get_file targets as written
    warnings: list[Problem] = field(default_factory=list)
    # Resources of the template not parsed here: their earlier load's yield is reused (`load_images`).
    reused: frozenset[str] = frozenset()
    # Resources whose parsing reported nothing and met no function the version lacks or removed.
    quiet: set[str] = field(default_factory=set)

    def names(self, name: str) -> bool:
        """Whether the template has a resource `name` (parsed here or reused)."""
        return name in self.resources or name in self.reused

    @property
    def path(self) -> str:
        return self.document.path


class _Checker:
    """Collects located problems and warnings while a model is built."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.problems: list[Problem] = []
        self.warnings: list[Problem] = []

    def error(self, where: Path, message: str) -> None:
        self.problems.append(self.document.problem(where, message))

    def warn(self, where: Path, message: str) -> None:
        self.warnings.append(self.document.problem(where, message))


def build_model(document: Document, reused: frozenset[str] = frozenset()) -> TemplateModel:
    """Check and parse a template document; `TemplateError` with every problem found.

    The resources named in `reused` are neither parsed nor checked (their earlier load's yield is
    reused); references to them are references to resources of the template."""
    check = _Checker(document)
    data = document.data
    if not isinstance(data, Mapping):
        raise TemplateError([document.problem([], "a template must be a map with heat_template_version")])
    version = _version(document, data)
    model = TemplateModel(document=document, version=version, reused=reused)
    for key in data:
        if key not in version.sections:
            check.error(
                (key,), f'"{key}" is not a valid template section (heat_template_version {version.name})'
            )
    description = data.get("description")
    model.description = description if isinstance(description, str) else None
    parser = Parser(version, check.error, check.warn)
    _parameters(model, _section(check, data, "parameters"), check)
    _parameter_groups(model, data.get("parameter_groups"), check)
    _conditions(model, _section(check, data, "conditions"), parser, check)
    _resources(model, _section(check, data, "resources"), parser, check)
    _outputs(model, _section(check, data, "outputs"), parser, check)
    _check_references(model, check)
    model.warnings = check.warnings
    if check.problems:
        raise TemplateError(check.problems)
    return model


def _version(document: Document, data: Mapping[str, Any]) -> TemplateVersion:
    if "heat_template_version" not in data:
        if any(key in data for key in CFN_VERSION_KEYS):
            message = "CloudFormation-format templates are not supported; use HOT (heat_template_version)"
        else:
            message = "the template has no heat_template_version"
        raise TemplateError([document.problem([], message)])
    version = version_named(data["heat_template_version"])
    if version is None:
        raise TemplateError(
            [
                document.problem(
                    ["heat_template_version"],
                    f"unknown heat_template_version {data['heat_template_version']!r}; "
                    f"known: {', '.join(known_version_names())}",
                )
            ]
        )
    return version


def _section(check: _Checker, data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = data.get(name)
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        check.error((name,), f'the "{name}" section must be a map, not a {type(value).__name__}')
        return {}
    return value


def _parameters(model: TemplateModel, section: Mapping[str, Any], check: _Checker) -> None:
    for name, raw in section.items():
        where = ("parameters", name)
        try:
            schema = parse_schema(str(name), raw, model.version)
        except ValueError as error:
            check.error(where, str(error))
            continue
        model.parameters[str(name)] = schema
        if schema.has_default:
            _check_default(schema, where, check)


def _check_default(schema: ParameterSchema, where: Where, check: _Checker) -> None:
    try:
        value = typed_parameter_value(schema, schema.default)
    except ParameterValueError as error:
        check.error((*where, "default"), f"Parameter {schema.name}: the default is invalid: {error}")
        return
    for message in check_constraints(schema, value):
        check.error(
            (*where, "default"), f"Parameter {schema.name}: the default breaks a constraint: {message}"
        )


def _parameter_groups(model: TemplateModel, groups: Any, check: _Checker) -> None:
    if groups is None:
        return
    if not isinstance(groups, list):
        check.error(("parameter_groups",), "parameter_groups must be a list")
        return
    seen: set[str] = set()
    for index, group in enumerate(groups):
        where = ("parameter_groups", index)
        if not isinstance(group, Mapping) or not isinstance(group.get("parameters"), list):
            check.error(where, "each parameter group must be a map with a list of parameters")
            continue
        for name in group["parameters"]:
            if name not in model.parameters:
                check.error(
                    (*where, "parameters"),
                    f"The grouped parameter {name} does not reference a valid parameter.",
                )
            elif name in seen:
                check.error((*where, "parameters"), f"The parameter {name} appears in more than one group.")
            seen.add(name)
    model.parameter_groups = list(groups)


def _conditions(model: TemplateModel, section: Mapping[str, Any], parser: Parser, check: _Checker) -> None:
    conditions_parser = parser.conditions_parser()
    for name, raw in section.items():
        references = References()
        parsed = conditions_parser.parse(raw, ("conditions", name), references)
        model.conditions[str(name)] = parsed
        if not isinstance(parsed, bool | Call):
            # As Heat: a definition is a boolean or a function, never the bare name of another.
            check.error(("conditions", name), f'The definition of condition "{name}" is invalid: {raw}')
        for parameter, where in references.parameters.items():
            if parameter not in model.parameters and parameter not in PSEUDO_PARAMETERS:
                check.error(where, f"The Parameter ({parameter}) was not defined in template.")


_PARSED_KEYS = ("properties", "metadata", "update_policy", "deletion_policy", "external_id")
_MAP_KEYS = ("properties", "metadata", "update_policy")


def _resources(model: TemplateModel, section: Mapping[str, Any], parser: Parser, check: _Checker) -> None:
    reused = model.reused
    for name in section:
        if name in reused:
            continue  # its body is not read: a section parsed by blocks decodes it only when read
        raw = section[name]
        reported = len(check.problems) + len(check.warnings) + parser.unusual
        _resource(model, name, raw, parser, check)
        if reported == len(check.problems) + len(check.warnings) + parser.unusual:
            model.quiet.add(name)


def _resource(model: TemplateModel, name: Any, raw: Any, parser: Parser, check: _Checker) -> None:
    """Resource `name` parsed into the model (left out when it has no type)."""
    resource_keys = model.version.resource_keys
    parse = parser.parse
    where: Where = ("resources", name)
    if type(raw) is not dict and not isinstance(raw, Mapping):
        check.error(where, f'Resource {name}: "resources" must contain a map of resource maps')
        return
    if not resource_keys.issuperset(raw):
        for key in raw:
            if key not in resource_keys:
                check.error((*where, key), f'"{key}" is not a valid keyword inside a resource definition')
    resource_type = raw.get("type")
    if not isinstance(resource_type, str) or not resource_type:
        check.error(where, f'Resource {name} is missing "type" (or it is not a string)')
        return
    references = References()
    parsed = dict.fromkeys(_PARSED_KEYS)
    for key in _PARSED_KEYS:
        if key in raw:
            parsed[key] = parse(raw[key], (*where, key), references)
    for key in _MAP_KEYS:
        value = parsed[key]
        if value is not None and not isinstance(value, dict) and type(value) is not Call:
            check.error((*where, key), f"Resource {name}: {key} must be a map")
    condition = raw.get("condition")
    if condition is not None and not isinstance(condition, str | bool):
        condition = parser.conditions_parser().parse(condition, (*where, "condition"), references)
    model.resources[str(name)] = _new_resource_model(
        ResourceModel,
        (
            str(name),
            resource_type,
            raw,
            parsed["properties"],
            parsed["metadata"],
            parsed["update_policy"],
            parsed["deletion_policy"],
            parsed["external_id"],
            condition,
            _depends_on(name, raw.get("depends_on"), where, check),
            references,
            where,
        ),
    )
    deletion_policy = raw.get("deletion_policy")
    if isinstance(deletion_policy, str) and not _known_policy(deletion_policy, model.version):
        check.error((*where, "deletion_policy"), f'Invalid deletion policy "{deletion_policy}"')


def _known_policy(policy: str, version: TemplateVersion) -> bool:
    if version.date >= LOWERCASE_POLICIES_SINCE:
        return policy in DELETION_POLICIES or (policy.capitalize() in DELETION_POLICIES and policy.islower())
    return policy in DELETION_POLICIES


def _depends_on(name: str, raw: Any, where: Where, check: _Checker) -> tuple[str, ...]:
    if raw is None:
        return ()
    items = [raw] if isinstance(raw, str) else raw
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        check.error(
            (*where, "depends_on"), f"Resource {name}: depends_on must be a resource name or a list of them"
        )
        return ()
    return tuple(items)


def _outputs(model: TemplateModel, section: Mapping[str, Any], parser: Parser, check: _Checker) -> None:
    for name, raw in section.items():
        where: Where = ("outputs", name)
        if not isinstance(raw, Mapping) or "value" not in raw:
            check.error(where, f"Output {name}: each output must contain a value key.")
            continue
        for key in raw:
            if key not in model.version.output_keys:
                check.error((*where, key), f'"{key}" is not a valid keyword inside an output definition')
        references = References()
        value = parser.parse(raw["value"], (*where, "value"), references)
        condition = raw.get("condition")
        if condition is not None and not isinstance(condition, str | bool):
            condition = parser.conditions_parser().parse(condition, (*where, "condition"), references)
        model.outputs[str(name)] = OutputModel(
            name=str(name),
            raw=raw["value"],
            value=value,
            description=raw.get("description"),
            condition=condition,
            where=where,
        )
        _check_snippet_references(model, references, check)


def _check_references(model: TemplateModel, check: _Checker) -> None:
    for resource in model.resources.values():
        for target in resource.depends_on:
            if not model.names(target):
                check.error(
                    (*resource.where, "depends_on"),
                    f'Resource {resource.name}: depends_on names "{target}", not a resource of this template',
                )
            elif target == resource.name:
                check.error((*resource.where, "depends_on"), f"Resource {resource.name} depends on itself")
        if isinstance(resource.condition, str) and resource.condition not in model.conditions:
            check.error(
                (*resource.where, "condition"),
                f"Invalid condition {resource.condition!r} (no such condition)",
            )
        _check_snippet_references(model, resource.references, check)
    for output in model.outputs.values():
        if isinstance(output.condition, str) and output.condition not in model.conditions:
            check.error(
                (*output.where, "condition"), f"Invalid condition {output.condition!r} (no such condition)"
            )


def _check_snippet_references(model: TemplateModel, references: References, check: _Checker) -> None:
    for target, where in references.resources.items():
        if not model.names(target) and target not in model.parameters and target not in PSEUDO_PARAMETERS:
            check.error(where, f'The specified reference "{target}" is not a resource of this template.')
    for parameter, where in references.parameters.items():
        if parameter not in model.parameters and parameter not in PSEUDO_PARAMETERS:
            check.error(where, f"The Parameter ({parameter}) was not defined in template.")
    for condition, where in references.conditions.items():
        if condition not in model.conditions:
            check.error(where, f"Invalid condition {condition!r} (no such condition)")
    for reference, where in references.files.items():
        model.file_references.setdefault(reference, where)
