"""Parsing a YAML template one resource at a time, reusing each resource parsed before from the same
text: a one-line change parses one resource, not fifty thousand.

The parsed blocks of a template are kept in a slot named by the template's path, the limits and the
format of what is kept; a `BlockKeeper` holds the slots (in memory here, in the state store for
the commands and the daemon, so one process reuses what another parsed). A block is found by the
digest of its text alone, so whatever process kept a slot last, a block found there is the value
that very text parses to: keepers need no locking, only whole writes.

The value is the whole parse's value whenever the cut is used (`yaml_blocks` says when it is), and
the whole parse runs instead whenever anything is unusual, so problems, their lines and anchors
always come from the whole document.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Mapping
from typing import Any, Protocol

from reconciler.templates.errors import TemplateError
from reconciler.templates.limits import Limits
from reconciler.templates.resource_bodies import merged_bodies
from reconciler.templates.yaml_blocks import ResourceBlock, cut_template
from reconciler.templates.yaml_building import AnchorRefused, build_yaml

# Names what a slot holds and how it was made; a change to either starts new slots.
BLOCKS_FORMAT = "yaml-blocks-2"


class BlockKeeper(Protocol):
    """Parsed resource blocks by slot, each a mapping from a block's digest to what it was parsed
    to (its resource's name and encoded body, `resource_bodies.KeptBlock`)."""

    def known(self, slot: str) -> Mapping[bytes, Any]:
        """The blocks kept in `slot` (empty when none)."""
        ...

    def keep(self, slot: str, blocks: Mapping[bytes, Any]) -> None:
        """Make `blocks` (those of the template just parsed) what `slot` holds."""
        ...


class MemoryBlockKeeper:
    """A `BlockKeeper` in this process's memory. `parsed` counts the blocks kept that its slot did
    not hold before (those parsed on a miss)."""

    def __init__(self) -> None:
        self.parsed = 0
        self._slots: dict[str, Mapping[bytes, Any]] = {}

    def known(self, slot: str) -> Mapping[bytes, Any]:
        return self._slots.get(slot, {})

    def keep(self, slot: str, blocks: Mapping[bytes, Any]) -> None:
        before = self._slots.get(slot, {})
        self.parsed += sum(1 for digest in blocks if digest not in before)
        self._slots[slot] = dict(blocks)


def block_slot(path: str, limits: Limits) -> str:
    """The slot of the template at `path` read within `limits`."""
    return hashlib.sha256(f"{BLOCKS_FORMAT}\0{path}\0{limits!r}".encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class BlockParse:
    """A template's value parsed by blocks, the digest of the block each resource came from, and
    the digest of the template's text outside its resources' blocks."""

    data: Any
    resource_digests: Mapping[str, bytes]
    skeleton_digest: bytes | None = None


def parse_by_blocks(path: str, text: str, limits: Limits, keeper: BlockKeeper) -> Any | None:
    """The value of the YAML template `text`, its resources parsed apart and reused from `keeper`;
    None when the template is not cut at its resources (the caller parses it whole)."""
    parsed = parse_blocks(path, text, limits, keeper)
    return None if parsed is None else parsed.data


def parse_blocks(path: str, text: str, limits: Limits, keeper: BlockKeeper) -> BlockParse | None:
    """`parse_by_blocks`, with each resource's block digest (a name written twice: its last block)."""
    cut = cut_template(text)
    if cut is None:
        return None
    slot = block_slot(path, limits)
    # The section's value in the other sections: found there only if no later "resources" key
    # overrides it, as the whole parse would let a later key do.
    marker = "reconciler-resource-blocks-" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    rest = cut.rest(marker)
    try:
        document = build_yaml(path, rest, limits)
    except (TemplateError, AnchorRefused):
        return None
    if type(document) is not dict or document.get("resources") != marker:
        return None  # another "resources" key comes after the cut one: the whole parse decides
    known = keeper.known(slot)
    inner = dataclasses.replace(limits, max_yaml_depth=limits.max_yaml_depth - 1)  # under resources:
    fresh = _parsed_blocks(path, [block for block in cut.blocks if block.digest not in known], inner)
    if fresh is None:
        return None
    merged = merged_bodies([block.digest for block in cut.blocks], known, fresh)
    if merged is None:
        return None
    document["resources"], digests, blocks = merged
    keeper.keep(slot, blocks)
    skeleton = hashlib.blake2b(f"{cut.before}\0{cut.after}".encode(), digest_size=20).digest()
    return BlockParse(document, digests, skeleton)


def _parsed_blocks(path: str, blocks: list[ResourceBlock], limits: Limits) -> dict[bytes, Any] | None:
    """Each block's value (`{name: body}`), by digest; None when one does not parse as one resource.

    The blocks are parsed as one document (a cold template costs one parse, not one per resource);
    a block is given its entry of that document only where its text starts with that entry's name
    as a plain key, so each is known to be that entry; any other is parsed on its own."""
    if not blocks:
        return {}
    try:
        together = build_yaml(path, "".join(block.text for block in blocks), limits, refuse_anchors=True)
    except (TemplateError, AnchorRefused):
        return None
    if type(together) is not dict:
        return None
    entries = list(together.items()) if len(together) == len(blocks) else [None] * len(blocks)
    values: dict[bytes, Any] = {}
    for block, entry in zip(blocks, entries, strict=True):
        if entry is not None and type(entry[0]) is str and block.text.lstrip(" ").startswith(entry[0] + ":"):
            values[block.digest] = {entry[0]: entry[1]}
            continue
        try:
            value = build_yaml(path, block.text, limits, refuse_anchors=True)
        except (TemplateError, AnchorRefused):
            return None
        if type(value) is not dict or len(value) != 1:
            return None
        values[block.digest] = value
    return values
