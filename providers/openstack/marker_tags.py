"""How the idempotency marker is written on each service's resources, and read back.

Nova and Neutron resources carry it as three tags: the marker itself (stack, resource, record id:
found again by `find_by_marker` after a crash), the stack's tag and `MANAGED_TAG`, which lets an
observe pass list only this provider's resources in a project shared with others. A tag the service
would refuse (see `providers.marker_text`: Nova's 60 characters without "/", Neutron's 255) is
written as a digest, so `find_by_marker` recognises a resource by the tag its marker writes, not by
parsing it. A server keeps the marker in its metadata under `MARKER_METADATA_KEY` as well, where
observe reads it back. Cinder volumes have no tags, so the marker is a metadata entry under
`MARKER_METADATA_KEY`, which Cinder's list filter can match. Nova key pairs and server groups
carry neither; see `keypair.py` and `server_group.py`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from providers.interface import Marker
from providers.marker_text import METADATA_VALUE, NEUTRON_TAG, TextLimit, bounded_name, is_digest

MARKER_METADATA_KEY = "reconciler-marker"
STACK_TAG_PREFIX = f"{Marker.PREFIX}-stack:"
# On everything this provider creates: observe lists only these first (see `ServerHandler.observe`).
MANAGED_TAG = f"{Marker.PREFIX}-managed"


def marker_tags(marker: Marker, limit: TextLimit = NEUTRON_TAG) -> list[str]:
    """The marker's tag, its stack's tag (each a digest when the service could not store it) and
    the tag every resource of this provider carries."""
    return [limit.fitted(marker.tag), limit.fitted(marker.stack_tag), MANAGED_TAG]


def marker_tag(marker: Marker, limit: TextLimit = NEUTRON_TAG) -> str:
    """The tag a list filter finds the marked resource by."""
    return limit.fitted(marker.tag)


def marker_metadata_value(marker: Marker) -> str:
    return METADATA_VALUE.fitted(marker.tag)


def is_marker_tag(tag: str) -> bool:
    return (
        tag == MANAGED_TAG
        or Marker.parse(tag) is not None
        or tag.startswith(STACK_TAG_PREFIX)
        or is_digest(tag)
    )


def user_tags(tags: Iterable[str]) -> list[str]:
    """The tags a template asked for: every tag but the ones this provider writes."""
    return [tag for tag in tags if not is_marker_tag(tag)]


def marker_from_tags(tags: Iterable[str]) -> Marker | None:
    """The marker a tag holds in clear (a digest holds none: see `find_by_marker`)."""
    for tag in tags:
        marker = Marker.parse(tag)
        if marker is not None:
            return marker
    return None


def marker_from_metadata(metadata: Mapping[str, Any]) -> Marker | None:
    value = metadata.get(MARKER_METADATA_KEY)
    return Marker.parse(value) if isinstance(value, str) else None


def carries_marker_metadata(metadata: Mapping[str, Any], marker: Marker) -> bool:
    return metadata.get(MARKER_METADATA_KEY) == marker_metadata_value(marker)


def physical_name(marker: Marker) -> str:
    """Heat's default name for a resource the template leaves unnamed: stack-resource-short id,
    cut to the services' 255 characters."""
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}")
