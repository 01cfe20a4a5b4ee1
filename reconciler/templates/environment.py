"""Heat environments: reading one file, merging several in order, and the resource registry.

Sections: parameters, parameter_defaults, resource_registry, event_sinks, encrypted_param_names,
parameter_merge_strategies. Files merge in the order given, with Heat's rules: a later file's
parameter replaces an earlier one unless its merge strategy says `merge` (strings concatenate,
numbers add, lists and comma-delimited lists extend, maps update) or `deep_merge` (maps merge
recursively). As in Heat, every file setting a parameter must agree on its strategy (a file that
names none means `overwrite`), so merging needs the strategy in each file: a disagreement is an
error naming both files. The registry
maps types to other types or to template files; a file path is relative to the environment file
that names it (as python-heatclient resolves it), and is kept as a repository path.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jsonschema

from reconciler.templates.documents import Document
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.file_source import relative_to
from schemas import load_schema
from schemas.resource_schemas import GLOBAL_ALIASES

SECTIONS = frozenset(
    {
        "parameters",
        "parameter_defaults",
        "resource_registry",
        "event_sinks",
        "encrypted_param_names",
        "parameter_merge_strategies",
    }
)
MERGE_STRATEGIES = ("overwrite", "merge", "deep_merge")
TEMPLATE_SUFFIXES = (".yaml", ".yml", ".template", ".json")
HOOKS = frozenset({"pre-create", "pre-update", "pre-delete", "post-create", "post-update", "post-delete"})


@dataclass(frozen=True)
class TypeMapping:
    """One registry entry: the type it maps to, or a template file (a repository path)."""

    target: str
    is_file: bool
    problem: str | None = None  # why the file cannot be used (reported where a resource uses it)


@dataclass
class Registry:
    """Type mappings: global ones (with `*` wildcards) and per-resource ones, later files winning."""

    global_types: dict[str, TypeMapping] = field(default_factory=dict)
    per_resource: dict[str, dict[str, TypeMapping]] = field(default_factory=dict)
    hooks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _by_type: dict[str, TypeMapping] = field(default_factory=dict, repr=False)  # without per-resource entries

    def resolve(self, resource_name: str, resource_type: str) -> TypeMapping:
        """What a resource of this name and type becomes, following aliases to the end."""
        if self.per_resource:
            return self._resolve(resource_name, resource_type)
        cached = self._by_type.get(resource_type)
        if cached is None:
            cached = self._by_type[resource_type] = self._resolve(resource_name, resource_type)
        return cached

    def _resolve(self, resource_name: str, resource_type: str) -> TypeMapping:
        seen = set()
        current = TypeMapping(resource_type, resource_type.endswith(TEMPLATE_SUFFIXES))
        while not current.is_file and current.target not in seen:
            seen.add(current.target)
            mapped = self._lookup(resource_name, current.target)
            if mapped is None or mapped.target == current.target:
                break
            current = mapped
        return current

    def _lookup(self, resource_name: str, resource_type: str) -> TypeMapping | None:
        for pattern, types in self.per_resource.items():
            if fnmatch.fnmatchcase(resource_name, pattern) and resource_type in types:
                return types[resource_type]
        exact = self.global_types.get(resource_type)
        if exact is not None:
            return exact
        for pattern, mapping in self.global_types.items():
            if pattern.endswith("*") and resource_type.startswith(pattern[:-1]):
                if mapping.is_file or not mapping.target.endswith("*"):
                    return mapping
                return TypeMapping(mapping.target[:-1] + resource_type[len(pattern) - 1 :], False)
        return heat_global_mapping(resource_type)


def heat_global_mapping(resource_type: str) -> TypeMapping | None:
    """Heat's global environment, loaded under every stack's own: the old names it maps
    (OS::Ceilometer::Alarm is an OS::Aodh::Alarm, OS::Quantum::* OS::Neutron::*)."""
    target = GLOBAL_ALIASES.get(resource_type)
    if target is not None:
        return TypeMapping(target, False)
    for alias, aliased in GLOBAL_ALIASES.items():
        if alias.endswith("*") and resource_type.startswith(alias[:-1]):
            return TypeMapping(aliased[:-1] + resource_type[len(alias) - 1 :], False)
    return None


@dataclass(frozen=True)
class Layer:
    """One environment file's value for a parameter, and how it merges with the earlier ones."""

    value: Any
    strategy: str
    file: str
    section: str = "parameters"
    key: str = ""
    document: Document | None = field(default=None, repr=False, compare=False)

    def problem(self, message: str) -> Problem:
        """A problem located at this layer's entry in its environment file."""
        if self.document is None:
            return Problem(self.file, 0, 0, message)
        return self.document.problem([self.section, self.key], message)


@dataclass
class Environment:
    """The merged environments of one stack."""

    parameters: dict[str, list[Layer]] = field(default_factory=dict)
    parameter_defaults: dict[str, list[Layer]] = field(default_factory=dict)
    registry: Registry = field(default_factory=Registry)
    event_sinks: list[Any] = field(default_factory=list)
    encrypted_param_names: list[str] = field(default_factory=list)
    strategies: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (strategy, file)


def _check_structure(document: Document) -> None:
    """The environment's shape, by its JSON Schema; every error located in the file."""
    validator = jsonschema.Draft202012Validator(load_schema("environment"))
    errors = sorted(validator.iter_errors(document.data), key=lambda error: list(error.absolute_path))
    if errors:
        raise TemplateError(
            [
                document.problem(
                    list(error.absolute_path),
                    f"{'/'.join(map(str, error.absolute_path)) or 'environment'}: {error.message}",
                )
                for error in errors
            ]
        )


def _section(document: Document, name: str, kind: type) -> Any:
    value = document.data.get(name)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        raise TemplateError([document.problem([name], f"the {name} section must be a {kind.__name__}")])
    return value


def merge_environment(environment: Environment, document: Document) -> None:
    """Merge one environment file (already parsed) into `environment`, Heat's way."""
    data = document.data
    if data is None:
        return
    if not isinstance(data, Mapping):
        raise TemplateError([document.problem([], "an environment must be a map of sections")])
    unknown = sorted(str(key) for key in data if key not in SECTIONS)
    if unknown:
        raise TemplateError(
            [document.problem([unknown[0]], f"environment has unknown section(s) {', '.join(unknown)}")]
        )
    _check_structure(document)
    strategies = _section(document, "parameter_merge_strategies", dict)
    for name in ("parameters", "parameter_defaults"):
        target = getattr(environment, name)
        for key, value in _section(document, name, dict).items():
            _merge_parameter(
                environment,
                section=name,
                document=document,
                target=target,
                key=str(key),
                value=value,
                strategies=strategies,
            )
    _merge_registry(environment.registry, document)
    environment.event_sinks.extend(_section(document, "event_sinks", list))
    for item in _section(document, "encrypted_param_names", list):
        if item not in environment.encrypted_param_names:
            environment.encrypted_param_names.append(str(item))


def _merge_parameter(
    environment: Environment,
    *,
    section: str,
    document: Document,
    target: dict[str, list[Layer]],
    key: str,
    value: Any,
    strategies: Mapping[str, Any],
) -> None:
    strategy = strategies.get(key, strategies.get("default", "overwrite"))
    if strategy not in MERGE_STRATEGIES:
        strategy = strategies.get("default", "overwrite")
    earlier = environment.strategies.get(key)
    if earlier is not None and earlier[0] != strategy:
        raise TemplateError(
            [
                document.problem(
                    ["parameter_merge_strategies", key],
                    f"Conflicting merge strategy {strategy!r} for parameter {key!r}: "
                    f"{earlier[1]} asked for {earlier[0]!r}",
                )
            ]
        )
    environment.strategies.setdefault(key, (strategy, document.path))
    layers = target.setdefault(key, [])
    if strategy == "overwrite":
        layers.clear()
    layers.append(Layer(value, strategy, document.path, section, key, document))


def merged_value(layers: list[Layer], parameter_type: str) -> Any:
    """The value several files' layers give a parameter of `parameter_type` (Heat's param_merge)."""
    value = layers[0].value
    for layer in layers[1:]:
        value = _merged(value, layer, parameter_type)
    return value


def _merged(old: Any, layer: Layer, parameter_type: str) -> Any:
    new = layer.value
    if parameter_type == "boolean":
        raise TemplateError([layer.problem(f"the {layer.strategy} strategy cannot merge boolean parameters")])
    if isinstance(old, Mapping) and isinstance(new, Mapping):
        return _merged_map(old, new, deep=layer.strategy == "deep_merge")
    if parameter_type == "comma_delimited_list" or isinstance(old, list):
        if isinstance(old, list):
            return [*old, *(new if isinstance(new, list) else str(new).split(","))]
        return ",".join([str(old), str(new)]) if old else new
    if parameter_type == "number":
        return float(old) + float(new) if "." in f"{old}{new}" else int(old) + int(new)
    return f"{old}{new}"


def _merged_map(old: Mapping[Any, Any], new: Mapping[Any, Any], *, deep: bool) -> dict[Any, Any]:
    result = dict(old)
    for key, value in new.items():
        if deep and isinstance(value, Mapping) and isinstance(result.get(key), Mapping):
            result[key] = _merged_map(result[key], value, deep=True)
        elif deep and isinstance(value, list) and isinstance(result.get(key), list):
            result[key] = [*result[key], *value]
        else:
            result[key] = value
    return result


def _mapping(document: Document, where: list[str | int], value: Any) -> TypeMapping:
    if not isinstance(value, str):
        raise TemplateError([document.problem(where, "a registry entry must map to a type name or a file")])
    if "::" in value and not value.endswith(TEMPLATE_SUFFIXES):
        return TypeMapping(value, False)
    try:
        return TypeMapping(relative_to(document.path, value), True)
    except TemplateError as error:
        line, _ = document.locate(where)
        where_text = f"{document.path}:{line}" if line else document.path
        return TypeMapping(value, True, problem=f"{error.problems[0].message} (mapped in {where_text})")


def _merge_registry(registry: Registry, document: Document) -> None:
    section = _section(document, "resource_registry", dict)
    for key, value in section.items():
        if key == "base_url":
            continue
        if key == "resources":
            if not isinstance(value, Mapping):
                raise TemplateError([document.problem(["resource_registry", key], "resources must be a map")])
            for resource_name, entries in value.items():
                _merge_resource_entries(registry, document, str(resource_name), entries)
            continue
        registry.global_types[str(key)] = _mapping(document, ["resource_registry", key], value)


def _merge_resource_entries(registry: Registry, document: Document, name: str, entries: Any) -> None:
    where: list[str | int] = ["resource_registry", "resources", name]
    if not isinstance(entries, Mapping):
        raise TemplateError(
            [document.problem(where, f"the registry entry for resource {name} must be a map")]
        )
    types = registry.per_resource.setdefault(name, {})
    for key, value in entries.items():
        if key == "hooks":
            hooks = value if isinstance(value, list) else [value]
            bad = [hook for hook in hooks if hook not in HOOKS]
            if bad:
                raise TemplateError([document.problem([*where, key], f"invalid hook type(s) {bad}")])
            registry.hooks[name] = tuple(hooks)
            continue
        types[str(key)] = _mapping(document, [*where, str(key)], value)
