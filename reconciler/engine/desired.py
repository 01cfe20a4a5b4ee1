"""What the engine is handed for a stack: its newest desired generation, and what it needs of it.

The protocols below are what the engine uses of `reconciler.templates`' `StackDefinition` and
`StackSpec`; structural typing lets the real ones (and nested definitions) serve unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from reconciler.templates.adopt_data import Adoption


class AttributeSource(Protocol):
    def physical_id(self, resource: str) -> str: ...

    def attribute(self, resource: str, name: str) -> Any: ...


class DesiredResource(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def nested_kind(self) -> str | None: ...

    @property
    def deletion_policy(self) -> Any: ...

    @property
    def external_id(self) -> Any: ...


class DesiredStack(Protocol):
    """What the engine needs of a stack definition."""

    @property
    def resources(self) -> Mapping[str, DesiredResource]: ...

    @property
    def outputs(self) -> Mapping[str, Any]: ...

    def graph(self) -> Mapping[str, frozenset[str]]: ...

    def resolve(self, value: Any, source: AttributeSource) -> Any: ...

    def resolve_properties(self, name: str, source: AttributeSource) -> dict[str, Any]: ...

    def resolve_output(self, name: str, source: AttributeSource) -> Any: ...

    def nested(
        self, name: str, properties: Mapping[str, Any], *, pseudo_parameters: Mapping[str, str] | None = None
    ) -> DesiredStack | None: ...

    def digest(self) -> str: ...

    def without_secrets(self, text: str) -> str: ...


class StackPolicy(Protocol):
    """The per-stack settings of `reconciler.yaml` the engine obeys."""

    @property
    def cloud(self) -> str: ...

    @property
    def self_heal(self) -> bool: ...

    @property
    def prune(self) -> bool: ...

    @property
    def observe_interval(self) -> float: ...

    @property
    def state(self) -> str: ...


SUSPENDED = "suspended"  # the `state` of a stack whose servers are suspended (Heat's stack suspend)
ACTIVE = "active"


@dataclass(frozen=True)
class Policy:
    """A plain `StackPolicy` (nested stacks inherit their parent's)."""

    cloud: str = "sim"
    self_heal: bool = True
    prune: bool = True
    observe_interval: float = 60.0
    require_approval: frozenset[str] = frozenset()  # "replace", "delete": wait for an approval
    state: str = ACTIVE

    @property
    def suspended(self) -> bool:
        return self.state == SUSPENDED


@dataclass(frozen=True)
class DesiredGeneration:
    """A stack's desired state at one commit; `adopt`: existing resources to take instead of creating."""

    commit: str
    spec: StackPolicy
    definition: DesiredStack
    adopt: Adoption | None = None
