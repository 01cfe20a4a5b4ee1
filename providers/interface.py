"""The one interface every resource backend implements, and the errors that cross it.

The engine talks to clouds only through `Provider`. Every backend (the OpenStack SDK, the simulated
cloud, the native Heat types) maps its own failures to the three errors below at this boundary, so
the engine decides retries from the error's *kind*, never from an SDK exception: `Retryable`
carries when to try again, `Permanent` carries the cloud's own message, `NotFound` says the
physical resource is gone.

Calls are synchronous and may block on the network; the engine runs them from a bounded pool of
threads, so a backend must be safe to call from several threads at once.

Observation is batched by design: `observe` receives every physical id of one resource type that
the caller wants to see and answers with one or a few paged list calls, never one GET per id.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable
from urllib.parse import unquote


class ProviderError(Exception):
    """Base of the errors a provider raises; the message is safe to show (no secrets)."""


class Retryable(ProviderError):
    """A transient failure (5xx, timeout, conflict, rate limit): try again, after `after` s if known.

    `conflict` says the cloud refused because something is in the way (HTTP 409: a name or an
    address already in use, a resource in a state that forbids the call), as opposed to a cloud that
    failed or did not answer: only a conflict can be solved by moving the other thing out of the way.
    """

    def __init__(self, message: str, after: float | None = None, *, conflict: bool = False) -> None:
        super().__init__(message)
        self.after = after
        self.conflict = conflict


class Permanent(ProviderError):
    """A failure retrying cannot fix (validation, quota, not authorized); the message is the cloud's."""


class NotFound(ProviderError):
    """The physical resource does not exist (any more)."""


class UpdateRule(enum.Enum):
    """What changing a property of an existing resource means."""

    UPDATE = "update"  # changed in place by an update call
    REPLACE = "replace"  # the resource is replaced: create the new one, then delete the old
    IMMUTABLE = "immutable"  # may never change once created: a change is a validation error


@dataclass(frozen=True)
class PropertySchema:
    """One property of a resource type, as Heat's resource type reference documents it."""

    name: str
    type: str  # "string" | "integer" | "number" | "boolean" | "list" | "map" | "any"
    required: bool = False
    default: Any = None
    update: UpdateRule = UpdateRule.REPLACE
    description: str = ""


@dataclass(frozen=True)
class ResourceType:
    """A resource type in the shared catalog: its properties and the attributes it exposes."""

    name: str  # e.g. "OS::Nova::Server"
    properties: Mapping[str, PropertySchema]
    attributes: frozenset[str] = frozenset()
    # Whether the resource reaches readiness asynchronously (e.g. a server in BUILD): the engine
    # then waits for an observe pass to report it READY instead of trusting the create call.
    asynchronous: bool = False
    # Whether the provider enforces the resource's own time limit (a deployment's, a wait
    # condition's `timeout`) by reporting it FAILED: the engine's ready deadline then does not apply.
    own_deadline: bool = False
    # Whether the resource becomes READY when a signal arrives (a deployment's result, a wait
    # condition's handle signals): observing it sooner finds nothing, so the engine observes it
    # ever more slowly until told a signal was kept (`Engine.resource_signalled`).
    signalled: bool = False

    def replace_reasons(self, changed: Collection[str]) -> frozenset[str]:
        """The changed property names that force a replacement (unknown names are conservative)."""
        reasons = set()
        for name in changed:
            schema = self.properties.get(name)
            if schema is None or schema.update is not UpdateRule.UPDATE:
                reasons.add(name)
        return frozenset(reasons)


@dataclass(frozen=True, slots=True)  # slots: made for every create and every resource observed
class Marker:
    """The idempotency marker every create carries: stack, resource and the record's id.

    Backends store `tag` as a tag (Nova, Neutron) or metadata entry (Cinder) so a worker that took
    over after a crash can find a resource created before the crash instead of making a duplicate.
    """

    stack: str
    resource: str
    record_id: str

    PREFIX = "reconciler"

    @property
    def tag(self) -> str:
        """`prefix:stack:resource:record`, with ":" (and "%") in a name escaped so it parses back."""
        return f"{self.PREFIX}:{_escaped(self.stack)}:{_escaped(self.resource)}:{self.record_id}"

    @property
    def stack_tag(self) -> str:
        """A tag shared by every resource of one stack, for list filters."""
        return f"{self.PREFIX}-stack:{self.stack}"

    @classmethod
    def parse(cls, tag: str) -> Marker | None:
        parts = tag.split(":")
        if len(parts) != 4 or parts[0] != cls.PREFIX:
            return None
        return cls(stack=unquote(parts[1]), resource=unquote(parts[2]), record_id=parts[3])


def _escaped(name: str) -> str:
    """A name with no ":" left, undone by `unquote`; names without ":" or "%" are unchanged."""
    return name.replace("%", "%25").replace(":", "%3A")


class LiveStatus(enum.Enum):
    """The live state of a physical resource, reduced to what convergence needs."""

    IN_PROGRESS = "IN_PROGRESS"  # e.g. BUILD: not ready yet, not failed
    READY = "READY"  # e.g. ACTIVE / available
    FAILED = "FAILED"  # e.g. ERROR: needs replacing


@dataclass(frozen=True, slots=True)
class LiveResource:
    """What a backend knows of one physical resource at one moment."""

    physical_id: str
    type: str
    status: LiveStatus
    properties: Mapping[str, Any] = field(default_factory=dict)
    attributes: Mapping[str, Any] = field(default_factory=dict)
    marker: Marker | None = None
    status_reason: str = ""
    suspended: bool = False  # the cloud holds it suspended (Nova's SUSPENDED): ready, not running
    # A FAILED resource that a replacement would not mend (a deployment whose script failed, a wait
    # condition signalled FAILURE): the engine fails it at once instead of replacing it.
    failure_is_final: bool = False


@runtime_checkable
class Provider(Protocol):
    """A backend that can create, update, delete and observe resources of some types."""

    def resource_types(self) -> Mapping[str, ResourceType]:
        """The catalog entries of every type this provider serves, by type name."""
        ...

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        """Create one resource carrying `marker`; may return while it is still IN_PROGRESS."""
        ...

    def update(
        self,
        type_name: str,
        physical_id: str,
        properties: Mapping[str, Any],
        changed: frozenset[str],
    ) -> LiveResource:
        """Change `changed` properties in place (only names whose rule is UPDATE)."""
        ...

    def delete(self, type_name: str, physical_id: str) -> None:
        """Delete one resource; raises NotFound when it is already gone."""
        ...

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        """Live state of those of `physical_ids` that exist, read with paged list calls."""
        ...

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        """The resource created with `marker`, if one exists (adoption after a crash)."""
        ...


@runtime_checkable
class Snapshotting(Protocol):
    """A backend that can keep a copy of a resource before deleting it (Heat's `Snapshot` policy).

    `snapshot` is idempotent: it looks for the copy `marker` names before making one, so a worker
    that takes over after a crash does not make a second copy. It returns the copy's id once the
    copy is complete, raises `Retryable` while it is being made, and `Permanent` for a type that
    cannot be copied or a copy that failed.
    """

    def snapshot(self, type_name: str, physical_id: str, marker: Marker) -> str:
        """The id of a complete copy of `physical_id`, made with `marker` if there was none."""
        ...


# How a create answered later hands its outcome over: a callable that returns the resource or raises
Deliver = Callable[[Callable[[], LiveResource]], None]


@runtime_checkable
class CreatesLater(Protocol):
    """A backend some of whose creates only wait, at the end, for a write another thread commits
    (a batch of them): the caller's thread need not wait with them.

    `create_later` does what `create` does, but may return None instead of the resource: it then
    calls `deliver(outcome)` once, on any thread, when the create is done; `outcome()` returns the
    resource, or raises the create's error. An error found before the wait is raised at once.
    """

    def create_later(
        self, type_name: str, properties: Mapping[str, Any], marker: Marker, deliver: Deliver
    ) -> LiveResource | None:
        """`create`, or None and `deliver` called once the create is done."""
        ...


@runtime_checkable
class Suspending(Protocol):
    """A backend whose resources of some types can be suspended and resumed (Heat's stack suspend).

    Both calls are idempotent and say where the resource is: one already in the state asked for is
    returned as it is; one on its way there raises `Retryable` (the caller asks again later); one
    whose state forbids the change raises `Retryable` with `conflict` (the cloud's 409).
    """

    def can_suspend(self, type_name: str) -> bool:
        """Whether resources of `type_name` can be suspended (servers); others are left as they are."""
        ...

    def suspend(self, type_name: str, physical_id: str) -> LiveResource:
        """The resource, suspended (`suspended` true)."""
        ...

    def resume(self, type_name: str, physical_id: str) -> LiveResource:
        """The resource, running again (`suspended` false)."""
        ...


@runtime_checkable
class ServiceCatalog(Protocol):
    """A backend that knows which services its cloud offers (Keystone's catalog)."""

    def service_types(self) -> frozenset[str]:
        """The service types of the cloud's catalog ("compute", "network", "load-balancer", ...)."""
        ...


@runtime_checkable
class RegionNamed(Protocol):
    """A backend that knows which region of its cloud it works in."""

    def region_name(self) -> str | None:
        """The region its calls go to ("RegionOne"; None when its cloud names none)."""
        ...


@runtime_checkable
class RegionCatalog(Protocol):
    """A backend that knows every region of its cloud (where Keystone's catalog lists endpoints)."""

    def region_names(self) -> frozenset[str]:
        """The regions of the cloud's catalog ("RegionOne", "RegionTwo", ...)."""
        ...
