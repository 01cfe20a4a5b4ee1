"""The plan's view of a recorded resource: only what deciding an action needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)  # not frozen: a plan makes one per record, and frozen fields cost microseconds
class RecordedResource:
    """A resource as the store recorded it: the properties last applied and whether it failed.
    Never changed once made."""

    name: str
    type: str
    physical_id: str | None
    properties: Mapping[str, Any] = field(default_factory=dict)
    attributes: Mapping[str, Any] = field(default_factory=dict)
    failed: bool = False  # FAILED in the cloud or in its last action: replaced, never updated
    deletion_policy: str = "Delete"  # Heat's, as last converged: what leaving the template does
    properties_digest: str | None = None  # `properties_digest` of `properties`, when recorded with them
    inputs_digest: str | None = None  # `resolution_inputs` of what `properties` were resolved from
