"""Templates' parsed resource blocks kept in the state store, so `reconciler plan`, `apply` and every
daemon of the fleet reuse what any of them parsed: a one-line change parses one resource.

A slot is stored as one `marshal` value (a dict from block digest to what the templates layer keeps
of it: its resource's name and marshalled body; marshal keeps every type a YAML document holds, and
reads back many times faster than any YAML parse). Blocks are
named by the digest of their text, so whichever process wrote a slot last, every block found in it
is exactly what its text parses to. The last value read or written per slot is kept in memory too,
so a long-running daemon reads the database once per template, not once per load; a slot's row is
written only when the blocks it did not hold are more than a hundredth of those it holds (a
one-line change of a large template does not rewrite its slot: the next process parses that
block again).

The database is trusted with this as with everything else it holds (marshal is not meant for
values an attacker wrote); a row that does not read back as a dict is treated as empty.
"""

from __future__ import annotations

import marshal
from collections.abc import Mapping
from typing import Any, Protocol


class BlockRows(Protocol):
    """The state store's rows of parsed blocks (`Store.template_blocks()`)."""

    def read(self, slot: str) -> bytes | None: ...

    def keep(self, slot: str, content: bytes) -> None: ...


class StoredBlocks:
    """The templates layer's `BlockKeeper` over the state store."""

    def __init__(self, rows: BlockRows) -> None:
        self._rows = rows
        self._slots: dict[str, Mapping[bytes, Any]] = {}

    def known(self, slot: str) -> Mapping[bytes, Any]:
        found = self._slots.get(slot)
        if found is None:
            found = self._slots[slot] = _decoded(self._rows.read(slot))
        return found

    def keep(self, slot: str, blocks: Mapping[bytes, Any]) -> None:
        held = self.known(slot)
        lacking = blocks.keys() - held.keys()
        if not lacking:
            return  # nothing parsed that the slot lacks
        kept = dict(blocks)
        self._slots[slot] = kept
        if len(lacking) * 100 > len(held):
            self._rows.keep(slot, marshal.dumps(kept))
        # else: a few blocks parsed again by the next process cost less than writing the slot whole


def _decoded(content: bytes | None) -> Mapping[bytes, Any]:
    if content is None:
        return {}
    try:
        value = marshal.loads(content)
    except (EOFError, ValueError, TypeError):
        return {}
    return value if type(value) is dict else {}
