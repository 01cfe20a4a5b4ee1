"""How a marker is written where a service limits the text it keeps, and recognised again.

A service keeps a marker as a tag or a metadata value, each with limits of its own: Nova tags are at
most 60 characters and hold no "/" or ",", Neutron tags at most 255 (a "," would split the list
filter that finds them), Nova and Cinder metadata values at most 255. A marker that fits is written
as it is; one that does not (a nested stack's name holds "/", a long name passes the limit) is
written as a stable digest of it. A digest cannot be parsed back, so a resource is recognised as a
marker's by comparing the text the marker writes with the text stored, never by parsing alone.

Names Heat makes up for unnamed resources (stack-resource-record) are bounded the same way: a name
over the limit keeps its start and its record suffix, which is what makes it unique.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass

from providers.interface import Marker

DIGEST_PREFIX = f"{Marker.PREFIX}#"
DIGEST_LENGTH = 40  # hex digits of SHA-256 kept: 160 bits, no collision among any cloud's resources
NAME_LIMIT = 255  # Nova, Neutron and Cinder names


@dataclass(frozen=True)
class TextLimit:
    """What one service keeps of a text: at most `length` characters, none of `forbidden`."""

    length: int
    forbidden: str = ""

    def fitted(self, text: str) -> str:
        """The text itself when the service keeps it as it is, else a stable digest of it."""
        if len(text) <= self.length and not any(char in text for char in self.forbidden):
            return text
        return DIGEST_PREFIX + hashlib.sha256(text.encode()).hexdigest()[:DIGEST_LENGTH]

    def carries(self, stored: Iterable[str], marker: Marker) -> bool:
        """Whether `stored` (tags, or one metadata value) holds the text `marker` writes."""
        return self.fitted(marker.tag) in stored


NOVA_TAG = TextLimit(60, "/,")
NEUTRON_TAG = TextLimit(255, ",")
METADATA_VALUE = TextLimit(255)
NEUTRON_DESCRIPTION = TextLimit(255)  # where a security group rule keeps its marker


def is_digest(text: str) -> bool:
    return text.startswith(DIGEST_PREFIX)


def bounded_name(name: str, suffix: str, limit: int = NAME_LIMIT) -> str:
    """`name + suffix`, its start cut so that the whole fits `limit` and `suffix` stays whole."""
    return name[: max(limit - len(suffix), 0)] + suffix
