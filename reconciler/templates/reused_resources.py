"""What a resource of a template yielded at an earlier load, reused while nothing it depends on
changed (`load_images` says when): its effective type, deletion policy, dependencies and parsed
properties, so a template changed in one resource parses, binds and checks that resource alone."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple


class ReusedResource(NamedTuple):
    """One resource's yield (a named tuple: one per resource of a large template)."""

    digest: bytes  # of the resource's text: the yield is that text's
    written_type: str
    type: str  # the effective type, after the resource registry
    deletion_policy: str
    depends_on: frozenset[str]
    parsed: bytes  # the properties with their calls parsed, pickled apart (read when first asked for)


@dataclass(frozen=True)
class ReusedResources:
    """The resources of a template load that reuse their earlier yield, and the template's order."""

    order: tuple[str, ...]  # every resource of the template, as written
    entries: Mapping[str, ReusedResource]
    touched: int  # resources added, removed or changed since the yields were made
