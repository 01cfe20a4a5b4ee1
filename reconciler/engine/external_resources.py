"""Heat's `external_id`: a resource that exists outside the stack, taken as it is.

Such a resource is never created, updated or deleted: its properties are not applied, removing it
from the template (or removing its stack) leaves it in the cloud, and if it goes missing or fails
in the cloud nothing is made in its place: the stack reports it for a person. Changing the id takes
the newly named resource instead (Heat refuses that update; here the template is the desired state,
so the record follows it), and the one named before stays in the cloud.
"""

from __future__ import annotations

from typing import Any


class InvalidExternalId(ValueError):
    """An `external_id` that does not resolve to a non-empty string."""


def external_id_named(value: Any) -> str:
    if isinstance(value, str) and value:
        return value
    raise InvalidExternalId(f"external_id must be the id of an existing resource, not {value!r}")
