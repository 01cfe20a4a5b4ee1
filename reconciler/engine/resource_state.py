"""One resource as the coordinator holds it in memory, mirroring its record in the store."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class RecordStatus(enum.StrEnum):
    """A record's status; IN_PROGRESS ones always have a deadline in the coordinator."""

    CREATE_IN_PROGRESS = "CREATE_IN_PROGRESS"  # intent written (marker known) or waiting for READY
    UPDATE_IN_PROGRESS = "UPDATE_IN_PROGRESS"
    READY = "READY"
    FAILED = "FAILED"
    RETIRED = "RETIRED"  # replaced or pruned: deleted once nothing refers to it
    DELETE_IN_PROGRESS = "DELETE_IN_PROGRESS"


@dataclass(slots=True, eq=False)
class ResourceState:
    """Mutable twin of a resource record; `record_id` is None until the store assigned one.

    `properties` and `attributes` are replaced, never changed in place: the JSON text last written
    for each is kept beside the value it encodes (`encoded_*`, matched by identity), so a record
    written again with the same value is not encoded again.
    """

    name: str
    type: str
    status: RecordStatus
    generation: int
    record_id: int | None = None
    physical_id: str | None = None
    properties: dict[str, Any] = field(default_factory=dict)
    attributes: dict[str, Any] = field(default_factory=dict)
    attempts: int = 0
    next_attempt_at: float | None = None
    last_error: str | None = None
    successor: ResourceState | None = None  # the replacement, for `replaced_by`
    recorded_replaced_by: int | None = None  # what the store holds, to know when to write it again
    marker_token: str | None = None  # for resources created inline, with no record id yet
    is_replacement: bool = False  # created to replace an older copy (counted as a replacement)
    delete_first: bool = False  # an old copy in the new one's way (a port in use, a unique name)
    conflicts: int = 0  # creates the cloud refused because something was in the way (HTTP 409)
    deletion_policy: str = "Delete"  # Heat's: Delete, Retain or Snapshot, as last converged
    encoded_properties: tuple[dict[str, Any], str, str | None] | None = None  # with its digest
    encoded_attributes: tuple[dict[str, Any], str] | None = None
    # The digest of what `inputs_of` was resolved from: recorded only while that very value is
    # `properties` (any other value put there, a drift seen for one, is not that resolution).
    inputs_digest: str | None = None
    inputs_of: dict[str, Any] | None = None
    leaves: tuple[dict[str, Any], frozenset[str]] | None = None  # the strings in `properties`
    # What the store holds of the fields plan memos rely on (`record_rows.plan_fields`), when known.
    stored_plan_fields: tuple[Any, ...] | None = None

    @property
    def replaced_by(self) -> int | None:
        return None if self.successor is None else self.successor.record_id
