"""What a plan says for each resource, and for a stack as a whole."""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


class Action(enum.Enum):
    """What convergence will do to one resource."""

    CREATE = "create"  # no physical resource yet
    UPDATE = "update"  # every changed property is changed in place
    REPLACE = "replace"  # create the new one first, delete the old one once its dependents moved
    DELETE = "delete"  # left the template (prune)
    RETAIN = "retain"  # left the template, and its `Retain` deletion policy keeps it in the cloud
    UNCHANGED = "unchanged"


@dataclass(slots=True)  # not frozen: a plan makes one per resource, and frozen fields cost microseconds
class ResourcePlan:
    """The decision for one resource, with why: the changed names and those forcing replacement.
    Never changed once made."""

    name: str
    type: str
    action: Action
    properties: Mapping[str, Any] | None = None  # the resolved desired properties, when known
    changed: frozenset[str] = frozenset()
    replace_reasons: frozenset[str] = frozenset()  # property names (or "type", "status") forcing it
    # The resources whose new values it reads (being created, replaced or updated): its properties
    # hold the `UNKNOWN` marker where they take those values, known only once apply has them.
    waiting_on: frozenset[str] = frozenset()
    nested: StackPlan | None = None  # a resource owning a nested stack: what happens inside it
    applied: Mapping[str, Any] | None = None  # the properties last applied, when recorded
    kind: str | None = None  # what nested stack it owns: "group", "template", "stack" (None: plain)


@dataclass(frozen=True)
class StackPlan:
    """Every resource's plan: desired ones in dependency order, then deletions in deletion order."""

    resources: tuple[ResourcePlan, ...]
    deletions: tuple[tuple[str, ...], ...] = field(default=())  # waves, each deletable together

    def by_name(self) -> Mapping[str, ResourcePlan]:
        return {plan.name: plan for plan in self.resources}

    def counts(self) -> Mapping[Action, int]:
        """How many resources each action touches (every action present, zero when unused)."""
        tally = Counter(plan.action for plan in self.resources)
        return {action: tally.get(action, 0) for action in Action}

    @property
    def changes_anything(self) -> bool:
        return any(plan.action is not Action.UNCHANGED for plan in self.resources)

    def flattened(self, prefix: str = "") -> Iterator[tuple[str, ResourcePlan]]:
        """Every plan, nested ones after their owner, named by path: `nodes`, `nodes.2`, `nodes.2.server`."""
        for plan in self.resources:
            path = f"{prefix}{plan.name}"
            yield path, plan
            if plan.nested is not None:
                yield from plan.nested.flattened(f"{path}.")
