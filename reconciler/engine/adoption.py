"""Whether adopt data can be taken whole: every problem with it named, before anything is done.

Adopting (Heat's `stack adopt`) makes nothing: so the data must name a physical resource for every
resource of the template that lives in a cloud (Heat fails any it does not name: "Resource ID was
not provided"); native types (random strings, values, software configs) hold nothing in a cloud and
are made as usual. Each name must be a resource of the template, of the type the data gives, and
each id must exist in the cloud as that type (one batched observe call per type). Any problem
refuses the whole adoption, each named with the file and the resource, and nothing is created or
deleted for the stack.
"""

from __future__ import annotations

from collections import defaultdict

from providers.interface import ProviderError
from reconciler.engine.desired import DesiredResource, DesiredStack
from reconciler.engine.provider_set import ProviderSet
from reconciler.templates.adopt_data import AdoptEntry, Adoption, AdoptMap


def adoption_problems(adoption: Adoption, definition: DesiredStack, providers: ProviderSet) -> list[str]:
    """Every reason `adoption` cannot be taken whole into `definition` (empty: it can)."""
    source = adoption.source
    problems: list[str] = []
    wanted: dict[str, list[tuple[str, str]]] = defaultdict(list)  # type -> (where, physical id)
    for name, declared in definition.resources.items():
        if name not in adoption.resources and _lives_in_a_cloud(declared, providers):
            problems.append(
                f"{source}: resource {name} ({declared.type}) is not named: adopting creates nothing, "
                "so every resource of the template held in a cloud must be named"
            )
    for name, entry in adoption.resources.items():
        resource = definition.resources.get(name)
        if resource is None:
            problems.append(f"{source}: resource {name} does not exist in the template")
            continue
        problems.extend(_entry_problems(source, name, entry, resource, wanted))
    for type_name, named in wanted.items():
        problems.extend(_missing_in_cloud(source, type_name, named, providers))
    return problems


def _lives_in_a_cloud(resource: DesiredResource, providers: ProviderSet) -> bool:
    if resource.external_id is not None:
        return False  # taken by its external_id already
    if resource.nested_kind is not None:
        return True
    return providers.provider_for(resource.type) is not None and not providers.is_inline(resource.type)


def _entry_problems(
    source: str,
    name: str,
    entry: AdoptEntry,
    resource: DesiredResource,
    wanted: dict[str, list[tuple[str, str]]],
) -> list[str]:
    if resource.nested_kind is not None:
        if entry.nested is None:
            return [f"{source}: resource {name} is a nested stack ({resource.type}): name its resources"]
        _nested_ids(name, entry.nested, wanted)
        return []
    if entry.nested is not None or entry.physical_id is None:
        return [f"{source}: resource {name} ({resource.type}) is not a nested stack: name its physical id"]
    if entry.type is not None and entry.type != resource.type:
        return [
            f"{source}: resource {name} is {entry.type} in the adopt data but {resource.type} in the template"
        ]
    wanted[resource.type].append((name, entry.physical_id))
    return []


def _nested_ids(where: str, nested: AdoptMap, wanted: dict[str, list[tuple[str, str]]]) -> None:
    """The ids of a nested stack's resources whose type the data gives (Heat's abandon data does)."""
    for name, entry in nested.items():
        if entry.nested is not None:
            _nested_ids(f"{where}/{name}", entry.nested, wanted)
        elif entry.type is not None and entry.physical_id is not None:
            wanted[entry.type].append((f"{where}/{name}", entry.physical_id))


def _missing_in_cloud(
    source: str, type_name: str, named: list[tuple[str, str]], providers: ProviderSet
) -> list[str]:
    provider = providers.provider_for(type_name)
    if provider is None:
        return [f"{source}: resource {where}: no provider serves {type_name}" for where, _ in named]
    if providers.is_inline(type_name):
        return []
    try:
        live = provider.observe(type_name, [physical_id for _, physical_id in named])
    except ProviderError as error:
        return [
            f"{source}: resource {where}: {type_name} could not be looked up: {error}" for where, _ in named
        ]
    return [
        f"{source}: resource {where}: no {type_name} {physical_id} exists in the cloud"
        for where, physical_id in named
        if physical_id not in live
    ]
