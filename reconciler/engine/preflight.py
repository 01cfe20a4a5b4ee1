"""Before anything of a stack is built: is every type it uses served here, and every service it needs
in the cloud's catalog?

Checked on the stack's whole tree (nested templates included) when a generation is submitted and
when a plan is made, so a stack that cannot be built whole is refused whole (INVALID, nothing
created) rather than half built. `validate` knows no cloud and does not ask: a type Heat knows is
valid there whatever serves it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from providers.catalog.service_types import services_needed
from providers.interface import ProviderError
from reconciler.engine.provider_set import ProviderSet
from reconciler.engine.remote_stacks import CONTEXT, REMOTE_STACK, context_refusal
from reconciler.templates.errors import FunctionError, Problem, TemplateError, Unresolved
from reconciler.templates.evaluation import AttributeSource, NoCloud

UNLOCATED = "(template)"
NAMED = 5  # resources named in one refusal before "and N more"


class TypeUse(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def resource(self) -> str: ...

    def problem(self, message: str) -> Problem:
        """The refusal `message` located where the resource's type is written."""
        ...


@runtime_checkable
class TypeUses(Protocol):
    """A definition that can list the types of its whole tree with where each is written."""

    def type_uses(self) -> Iterable[TypeUse]: ...


@runtime_checkable
class KnownProperties(Protocol):
    """A definition that can resolve a resource's properties as far as they are known before apply."""

    def resolve_properties_known(self, name: str, source: AttributeSource) -> dict[str, Any]: ...

    def problem_at(self, where: tuple[str, ...], message: str) -> Problem: ...


class DesiredResources(Protocol):
    @property
    def resources(self) -> Mapping[str, _Typed]: ...


class _Typed(Protocol):
    @property
    def type(self) -> str: ...

    @property
    def nested_kind(self) -> str | None: ...


@dataclass(frozen=True)
class _Unlocated:
    """A use known only by its resource (a definition that cannot say where it is written)."""

    type: str
    resource: str

    def problem(self, message: str) -> Problem:
        return Problem(UNLOCATED, 0, 0, message)


def preflight_problems(definition: DesiredResources, providers: ProviderSet, cloud: str) -> list[Problem]:
    """Why the stack of `definition` cannot be built on `cloud` (empty: nothing stands in the way)."""
    if _flat_and_served(definition, providers):
        return []
    uses = _uses_of(definition)
    problems = _remote_stack_problems(definition, providers, cloud)
    problems += _missing_services(uses, providers, cloud)
    unserved: dict[str, list[TypeUse]] = {}
    for use in uses:
        if providers.provider_for(use.type) is None:
            unserved.setdefault(use.type, []).append(use)
    for type_name, users in unserved.items():
        message = f"{_resources(users)}: no provider serves {type_name} on cloud {cloud!r}"
        problems.append(users[0].problem(message))
    return problems


def _flat_and_served(definition: DesiredResources, providers: ProviderSet) -> bool:
    """A stack with no nested stacks whose every type is served, with the services they need: nothing
    to refuse, known from its distinct types alone (locating each use costs an object per resource)."""
    types: set[str] = set()
    for resource in definition.resources.values():
        if resource.nested_kind is not None:
            return False
        types.add(resource.type)
    if any(providers.provider_for(name) is None for name in types):
        return False
    needed = {services_needed(name) for name in types} - {()}
    if not needed:
        return True
    try:
        offered = providers.service_types()
    except ProviderError:
        return True  # as below: the calls themselves will say what is wrong
    return offered is None or all(offered & set(services) for services in needed)


def _remote_stack_problems(definition: DesiredResources, providers: ProviderSet, cloud: str) -> list[Problem]:
    """The OS::Heat::Stack resources whose `context` asks for a region or credentials their parent's
    cloud does not have."""
    if not isinstance(definition, KnownProperties):
        return []
    remote = [name for name, resource in definition.resources.items() if resource.type == REMOTE_STACK]
    problems: list[Problem] = []
    for name in remote:
        try:
            context = definition.resolve_properties_known(name, NoCloud()).get(CONTEXT)
        except (FunctionError, TemplateError, Unresolved):
            continue  # load-time checks name what is wrong with it; apply checks it once resolved
        if not context:
            continue
        try:
            region, regions = providers.region_name(), providers.region_names()
        except ProviderError:
            continue  # the catalog cannot be read now: checked again at apply
        refusal = context_refusal(name, context, cloud, region, regions)
        if refusal is not None:
            problems.append(definition.problem_at(("resources", name, "properties", CONTEXT), refusal))
    return problems


def _uses_of(definition: DesiredResources) -> list[TypeUse]:
    if isinstance(definition, TypeUses):
        return list(definition.type_uses())
    return [
        _Unlocated(resource.type, name)
        for name, resource in definition.resources.items()
        if resource.nested_kind is None
    ]


def _missing_services(uses: list[TypeUse], providers: ProviderSet, cloud: str) -> list[Problem]:
    """One refusal per service the cloud's catalog lacks, naming the resources that need it."""
    needing: dict[tuple[str, ...], list[TypeUse]] = {}
    for use in uses:
        needed = services_needed(use.type)
        if needed:
            needing.setdefault(needed, []).append(use)
    if not needing:
        return []
    try:
        offered = providers.service_types()
    except ProviderError:
        return []  # the catalog cannot be read now: the calls themselves will say what is wrong
    if offered is None:
        return []
    return [
        users[0].problem(f"the cloud {cloud!r} has no {needed[0]} service (needed by {_names(users)})")
        for needed, users in needing.items()
        if not offered & set(needed)
    ]


def _names(users: list[TypeUse]) -> str:
    names = list(dict.fromkeys(use.resource for use in users))
    shown = ", ".join(names[:NAMED])
    return shown if len(names) <= NAMED else f"{shown} and {len(names) - NAMED} more"


def _resources(users: list[TypeUse]) -> str:
    label = "resource" if len({use.resource for use in users}) == 1 else "resources"
    return f"{label} {_names(users)}"
