"""How the idempotency marker is written on each service's resources, and read back.

Nova and Neutron resources carry it as three tags: the marker itself (stack, resource, record id:
found again by `find_by_marker` after a crash), the stack's tag and `MANAGED_TAG`, which lets an
observe pass list only this provider's resources in a project shared with others. Nova allows 60
characters per tag, so a longer tag is replaced by a digest of it and the full marker is kept in
the server's metadata under `MARKER_METADATA_KEY` as well, where it is read back. Cinder volumes
have no tags, so the marker is a metadata entry under `MARKER_METADATA_KEY`, which Cinder's list
filter can match. Nova key pairs and server groups carry neither; see `keypair.py` and `server_group.py`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from providers.interface import Marker

MARKER_METADATA_KEY = "reconciler-marker"
STACK_TAG_PREFIX = f"{Marker.PREFIX}-stack:"
# On everything this provider creates: observe lists only these first (see `ServerHandler.observe`).
MANAGED_TAG = f"{Marker.PREFIX}-managed"


NOVA_TAG_LIMIT = 60  # Nova tags are at most 60 characters, without "/" or ","
NEUTRON_TAG_LIMIT = 255
HASHED_PREFIX = f"{Marker.PREFIX}#"


def marker_tags(marker: Marker, limit: int = NEUTRON_TAG_LIMIT) -> list[str]:
    """The marker's tag, its stack's tag (each hashed when the service could not store it) and the
    tag every resource of this provider carries."""
    return [fitted_tag(marker.tag, limit), fitted_tag(marker.stack_tag, limit), MANAGED_TAG]


def marker_tag(marker: Marker, limit: int = NEUTRON_TAG_LIMIT) -> str:
    """The tag a list filter finds the marked resource by."""
    return fitted_tag(marker.tag, limit)


def fitted_tag(tag: str, limit: int) -> str:
    """The tag itself, or a stable digest of it when too long or holding "/" or "," (Nova)."""
    if len(tag) <= limit and "/" not in tag and "," not in tag:
        return tag
    return HASHED_PREFIX + hashlib.sha256(tag.encode()).hexdigest()[:40]


def is_marker_tag(tag: str) -> bool:
    return (
        tag == MANAGED_TAG
        or Marker.parse(tag) is not None
        or tag.startswith((STACK_TAG_PREFIX, HASHED_PREFIX))
    )


def user_tags(tags: Iterable[str]) -> list[str]:
    """The tags a template asked for: every tag but the ones this provider writes."""
    return [tag for tag in tags if not is_marker_tag(tag)]


def marker_from_tags(tags: Iterable[str]) -> Marker | None:
    for tag in tags:
        marker = Marker.parse(tag)
        if marker is not None:
            return marker
    return None


def marker_from_metadata(metadata: Mapping[str, Any]) -> Marker | None:
    value = metadata.get(MARKER_METADATA_KEY)
    return Marker.parse(value) if isinstance(value, str) else None


def physical_name(marker: Marker) -> str:
    """Heat's default name for a resource the template leaves unnamed: stack-resource-short id."""
    return f"{marker.stack}-{marker.resource}-{marker.record_id[:12]}"
