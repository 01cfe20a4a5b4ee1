"""What a stack's coordinator runs under besides its definition: lineage, policy, place among groups.

Passed whole from the engine to a stack's coordinator, and from a parent to each nested stack it
makes. A nested stack's spec is stored with its generation (`to_inputs`), so the worker holding the
child's shard, maybe another, can rebuild the same child (`nested_handoff`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.engine.batching import BatchPolicy
from reconciler.engine.desired import ACTIVE, DesiredStack, Policy
from reconciler.templates.adopt_data import AdoptMap, adopt_map_from_json, adopt_map_json

LINEAGE = "lineage"  # the key of `inputs` holding a nested stack's lineage


@dataclass(frozen=True)
class Lineage:
    """How a nested stack's definition is made from its root's: (resource, properties) per level."""

    root: str
    path: tuple[tuple[str, Mapping[str, Any]], ...] = ()

    def child(self, resource: str, properties: Mapping[str, Any]) -> Lineage:
        return Lineage(self.root, (*self.path, (resource, properties)))

    @property
    def nested(self) -> bool:
        return bool(self.path)


@dataclass(frozen=True)
class RunSpec:
    """A stack's lineage, the policy it follows (a nested one inherits its parent's), whether it is a
    group or a group's member, and a group's pace (`batch`)."""

    lineage: Lineage
    policy: Policy
    group_member: bool = False
    is_group: bool = False
    batch: BatchPolicy | None = None
    # Existing resources to take instead of creating (Heat's adopt), stored with a nested generation.
    adopt: AdoptMap | None = None
    retain_all: bool = False  # removed under a `Retain` policy: every resource stays in the cloud

    @classmethod
    def root(cls, stack: str, policy: Policy, adopt: AdoptMap | None = None) -> RunSpec:
        return cls(Lineage(stack), policy, adopt=adopt)

    def generation_inputs(self, resources: int) -> dict[str, Any]:
        """What a generation of `resources` resources stores in its `inputs` (a nested one: `to_inputs`)."""
        if self.lineage.nested:
            return self.to_inputs(resources)
        # prune: what removing the stack does, for a daemon that never saw it
        return {"resources": resources, "cloud": self.policy.cloud, "prune": self.policy.prune}

    def to_inputs(self, resources: int) -> dict[str, Any]:
        """What a nested generation stores in its `inputs`."""
        return {
            "resources": resources,
            "cloud": self.policy.cloud,
            LINEAGE: {
                "root": self.lineage.root,
                "path": [[resource, dict(properties)] for resource, properties in self.lineage.path],
                "self_heal": self.policy.self_heal,
                "prune": self.policy.prune,
                "observe_interval": self.policy.observe_interval,
                "require_approval": sorted(self.policy.require_approval),
                "state": self.policy.state,
                "group_member": self.group_member,
                "is_group": self.is_group,
                "batch": None if self.batch is None else _batch_inputs(self.batch),
                "adopt": None if self.adopt is None else adopt_map_json(self.adopt),
                "retain_all": self.retain_all,
            },
        }

    def generation_digest(self, definition: DesiredStack) -> str:
        """What makes a generation new: the definition, the lifecycle state it is kept in, and the
        resources it adopts (so adopting a stack abandoned before is a generation of its own)."""
        digest = definition.digest()
        if self.policy.suspended:
            digest = f"{digest}:{self.policy.state}"
        if self.adopt is not None:
            taken = json.dumps(adopt_map_json(self.adopt), sort_keys=True).encode()
            digest = f"{digest}:adopt:{hashlib.sha256(taken).hexdigest()[:16]}"
        return digest

    @classmethod
    def from_inputs(cls, inputs: Mapping[str, Any]) -> RunSpec | None:
        """The spec stored in a generation's inputs; None for a root stack's generation."""
        stored = inputs.get(LINEAGE)
        if not isinstance(stored, Mapping):
            return None
        path = tuple((str(resource), dict(properties)) for resource, properties in stored["path"])
        batch = stored.get("batch")
        return cls(
            Lineage(str(stored["root"]), path),
            Policy(
                str(inputs.get("cloud", "sim")),
                bool(stored["self_heal"]),
                bool(stored["prune"]),
                float(stored["observe_interval"]),
                frozenset(stored.get("require_approval", ())),
                str(stored.get("state", ACTIVE)),
            ),
            bool(stored["group_member"]),
            bool(stored["is_group"]),
            None if batch is None else BatchPolicy(int(batch[0]), float(batch[1]), int(([*batch, 0])[2])),
            None if stored.get("adopt") is None else adopt_map_from_json(stored["adopt"]),
            bool(stored.get("retain_all", False)),
        )


def retained_inputs(inputs: Mapping[str, Any]) -> dict[str, Any]:
    """A nested generation's `inputs` marked to keep every resource when the stack is removed."""
    stored = inputs.get(LINEAGE)
    if not isinstance(stored, Mapping):
        return dict(inputs)
    return {**inputs, LINEAGE: {**stored, "retain_all": True}}


def _batch_inputs(batch: BatchPolicy) -> list[float]:
    return [batch.max_batch_size, batch.pause_time, batch.min_in_service]
