"""Digests of what decides a resource's effective type besides its own text: the environment's
resource registry and the resource type schemas this code knows."""

from __future__ import annotations

import hashlib

from reconciler.templates.environment import Registry
from reconciler.templates.stable_reprs import stable_repr
from schemas.resource_schemas import schemas_fingerprint


def types_digest(registry: Registry) -> bytes:
    """The digest of `registry`'s mappings and the schemas known: equal for two loads, a resource
    written alike in both has the same effective type in both."""
    mappings = (
        sorted(registry.global_types.items()),
        sorted((name, sorted(entries.items())) for name, entries in registry.per_resource.items()),
        sorted(registry.hooks.items()),
    )
    return hashlib.blake2b(stable_repr(mappings).encode() + schemas_fingerprint(), digest_size=16).digest()
