"""What `adopt_from` (or `reconciler adopt STACK FILE`) names: existing resources to take under management.

Two shapes are read, YAML or JSON:

- Heat's abandon data (what `openstack stack abandon` and `reconciler abandon` print): a mapping
  with `resources`, each entry `{resource_id, type, ...}`, and a nested stack's entry its own
  abandon data (with `resources` of its own), as Heat writes it;
- a hand-written map `{resource_name: physical_id}`, where a nested stack's (or group's) value is
  such a map of its own resources (a group's members are named "0", "1", ...).

Parsing is pure; whether the names exist in the template and the ids in the cloud is checked by
the engine before anything is done (`reconciler.engine.adoption`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from reconciler.templates.documents import load_document
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.file_source import FileSource
from reconciler.templates.limits import Limits


@dataclass(frozen=True)
class AdoptEntry:
    """One resource to adopt: its physical id (and type, when the data says), or a nested stack's map."""

    physical_id: str | None = None
    type: str | None = None
    nested: Mapping[str, AdoptEntry] | None = field(default=None)


AdoptMap = Mapping[str, AdoptEntry]


@dataclass(frozen=True)
class Adoption:
    """The resources to adopt into one stack, and the file they were read from (for messages)."""

    source: str
    resources: AdoptMap


def load_adoption(files: FileSource, path: str, limits: Limits | None = None) -> Adoption:
    """Read the adopt file at `path`; `TemplateError` naming the file and each entry it cannot read."""
    document = load_document(path, files.read(path), limits or Limits())
    return parse_adoption(path, document.data)


def parse_adoption(source: str, data: Any) -> Adoption:
    problems: list[Problem] = []
    if not isinstance(data, Mapping):
        raise TemplateError([Problem(source, 0, 0, "adopt data must be a mapping of resources")])
    resources = _entries(source, data, "", problems)
    if problems:
        raise TemplateError(problems)
    return Adoption(source, resources)


def _entries(source: str, data: Mapping[str, Any], where: str, problems: list[Problem]) -> AdoptMap:
    """A map of resources: Heat's abandon data (its `resources`) or a plain name -> id map."""
    resources = data.get("resources") if _is_abandon_data(data) else data
    if not isinstance(resources, Mapping):
        problems.append(Problem(source, 0, 0, f"{where or 'the top level'}: `resources` must be a mapping"))
        return {}
    entries: dict[str, AdoptEntry] = {}
    for name, value in resources.items():
        entry = _entry(source, value, f"{where}{name}", problems)
        if entry is not None:
            entries[str(name)] = entry
    return entries


def _entry(source: str, value: Any, where: str, problems: list[Problem]) -> AdoptEntry | None:
    if isinstance(value, str) and value:
        return AdoptEntry(physical_id=value)
    if isinstance(value, Mapping) and _is_abandon_data(value):
        return AdoptEntry(nested=_entries(source, value, f"{where}/", problems))
    if isinstance(value, Mapping) and "resource_id" in value:
        physical_id, type_name = value.get("resource_id"), value.get("type")
        if isinstance(physical_id, str) and physical_id:
            return AdoptEntry(physical_id, type_name if isinstance(type_name, str) else None)
        problems.append(Problem(source, 0, 0, f"resource {where}: no resource_id to adopt"))
        return None
    if isinstance(value, Mapping) and value:
        return AdoptEntry(nested=_entries(source, value, f"{where}/", problems))
    problems.append(
        Problem(source, 0, 0, f"resource {where}: expected a physical id, or a nested stack's resources")
    )
    return None


def _is_abandon_data(data: Mapping[str, Any]) -> bool:
    """Heat's abandon data of a stack (or of a nested stack, as a resource's entry)."""
    if not isinstance(data.get("resources"), Mapping):
        return False
    return set(data) == {"resources"} or bool({"template", "id", "name"} & data.keys())


def adopt_map_json(resources: AdoptMap) -> dict[str, Any]:
    """`resources` as plain JSON (a nested stack's generation carries it to whichever worker holds it)."""
    return {
        name: {"physical_id": entry.physical_id, "type": entry.type}
        if entry.nested is None
        else {"nested": adopt_map_json(entry.nested)}
        for name, entry in resources.items()
    }


def adopt_map_from_json(data: Mapping[str, Any]) -> AdoptMap:
    """What `adopt_map_json` wrote."""
    return {
        str(name): AdoptEntry(nested=adopt_map_from_json(value["nested"]))
        if "nested" in value
        else AdoptEntry(value.get("physical_id"), value.get("type"))
        for name, value in data.items()
    }
