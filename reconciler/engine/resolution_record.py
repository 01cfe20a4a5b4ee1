"""Apply keeps, beside the properties it applies, the digest of what they were resolved from, so a
plan can decide the resource unchanged without resolving it (`reconciler.plan.resolution_inputs`).

The digest belongs to one resolved value: it is written only while that very value is the record's
properties, so a record whose properties came from elsewhere (drift seen in the cloud) has none.
"""

from __future__ import annotations

from typing import Any

from reconciler.engine.class_checks import ClassCheck
from reconciler.engine.desired import AttributeSource
from reconciler.engine.resource_state import ResourceState
from reconciler.plan import Action
from reconciler.plan.resolution_inputs import ScopedStack, reads_attributes, resource_inputs, stack_inputs
from reconciler.templates.errors import Unresolved

# Whether a class of definitions is a ScopedStack: a protocol's isinstance checks every member each
# time, which cost more than the digest itself when asked once per resource decided.
_is_scoped = ClassCheck(ScopedStack)


def resolution_digest(definition: Any, name: str, source: AttributeSource) -> str | None:
    """The digest of what resource `name`'s properties resolve from against `source` now (None: a
    resource a plan always resolves)."""
    if not _is_scoped(definition):
        return None
    shared = stack_inputs(definition)
    resource = definition.resources.get(name) if shared is not None else None
    if shared is None or resource is None or resource.nested_kind is not None:
        return None
    written = resource.properties
    if reads_attributes(written):
        return None

    def physical_id(required: str) -> str | None:
        try:
            return source.physical_id(required)
        except Unresolved:
            return None

    return resource_inputs(shared, resource.type, written, definition.graph()[name], physical_id)


def note_resolution(
    record: ResourceState | None,
    before: ResourceState | None,
    desired: dict[str, Any],
    digest: str | None,
    action: Action,
) -> bool:
    """Tie `digest` to the value the record holds (or will hold) after `action`: the record it had
    `before` keeps its properties when unchanged, any other takes `desired`. True when an unchanged
    record must be written again to keep it (its recorded digest is another)."""
    if record is None:
        return False
    kept = action is Action.UNCHANGED and record is before
    basis = record.properties if kept else desired
    if record.inputs_of is basis and record.inputs_digest == digest:
        return False
    record.inputs_of, record.inputs_digest = basis, digest
    return kept
