"""The length and character limits the real services put on names, tags and metadata, refused with
a 400 as they refuse them, so a client that writes what a real cloud would not keep fails here too.

Nova: tags at most 60 characters, without "/" or ","; metadata keys and values at most 255.
Neutron: tags at most 255 characters. Cinder: metadata keys and values at most 255. Every service:
names at most 255 characters, Neutron descriptions too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest

TEXT_LIMIT = 255
NOVA_TAG_LENGTH = 60
NOVA_TAG_FORBIDDEN = "/,"
NOVA_COLLECTIONS = frozenset({"servers", "keypairs", "server_groups"})
NEUTRON_COLLECTIONS = frozenset(
    {"networks", "subnets", "ports", "routers", "security_groups", "security_group_rules", "floatingips"}
)


def check_fields(collection: str, request: Mapping[str, Any]) -> None:
    """Refuse, as the service would, a request whose name, tags or metadata it cannot keep."""
    for key in ("name", "description") if collection in NEUTRON_COLLECTIONS else ("name",):
        value = request.get(key)
        if isinstance(value, str) and len(value) > TEXT_LIMIT:
            raise BadRequest(
                f"Invalid input for {key}. Reason: '{value[:40]}...' exceeds maximum length of 255."
            )
    check_tags(collection, request.get("tags") or ())
    check_metadata(request.get("metadata") or {})


def check_tags(collection: str, tags: Any) -> None:
    nova = collection in NOVA_COLLECTIONS
    limit = NOVA_TAG_LENGTH if nova else TEXT_LIMIT
    for tag in tags:
        if not isinstance(tag, str) or len(tag) > limit:
            raise BadRequest(f"Invalid input for tags. Reason: a tag exceeds maximum length of {limit}.")
        if nova and any(char in tag for char in NOVA_TAG_FORBIDDEN):
            raise BadRequest("Invalid input for field/attribute tags. Tags cannot contain '/' or ','.")


def check_metadata(metadata: Mapping[str, Any]) -> None:
    for key, value in metadata.items():
        if len(str(key)) > TEXT_LIMIT or (isinstance(value, str) and len(value) > TEXT_LIMIT):
            raise BadRequest(
                "Invalid input for field/attribute metadata. Keys and values are at most 255 long."
            )
