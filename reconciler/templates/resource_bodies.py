"""A template's `resources` section as parsed by blocks or lines: the bodies kept from an earlier
parse stay encoded until first read, so a load that reuses most resources' earlier yield decodes
the few it makes, not fifty thousand.

A block is kept as its resource's name and its body encoded with `marshal` (every type a YAML or
JSON document holds, read back in C). The section reads as the mapping the whole parse gives:
same names in the same order, equal bodies; reading every body decodes every body.
"""

from __future__ import annotations

import marshal
from collections.abc import Iterator, Mapping, Sequence
from operator import itemgetter
from typing import Any

# A kept block: its resource's name and body (`marshal`); a block parsed now: `{name: body}`.
KeptBlock = tuple[Any, bytes]


class ResourceBodies(Mapping[Any, Any]):
    """Resources' bodies by name, in the order written, those kept encoded decoded when first read.

    Reading is safe from several threads at once (a cached document and the definitions made from
    it are shared read only): a body is put among the decoded ones before its encoding is dropped,
    and a reader missing both looks again.
    """

    def __init__(
        self, order: Mapping[Any, bytes], decoded: dict[Any, Any], encoded: dict[Any, bytes]
    ) -> None:
        self._order = order
        self._decoded = decoded
        self._encoded = encoded

    def __getitem__(self, name: Any) -> Any:
        found = self._decoded.get(name, _MISSING)
        if found is not _MISSING:
            return found
        content = self._encoded.get(name)
        if content is None:
            found = self._decoded.get(name, _MISSING)  # decoded by another reader meanwhile
            if found is _MISSING:
                raise KeyError(name)
            return found
        value = self._decoded.setdefault(name, marshal.loads(content))
        self._encoded.pop(name, None)
        return value

    def __contains__(self, name: object) -> bool:
        return name in self._order

    def __iter__(self) -> Iterator[Any]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def __repr__(self) -> str:
        return repr(dict(self.items()))


def merged_bodies(
    digests: Sequence[bytes], known: Mapping[bytes, Any], fresh: Mapping[bytes, Any]
) -> tuple[ResourceBodies, dict[Any, bytes], dict[bytes, KeptBlock]] | None:
    """The resources of blocks (by digest: kept in `known`, or parsed now in `fresh`) in order, the
    digest of the block each name came from, and every block as it is kept; None when a body parsed
    now cannot be kept (a value `marshal` does not write).

    A name written twice has its last body, in its first place, as the whole parse gives it."""
    # whole-list operations, not a loop: this runs once per load over every resource of a template
    blocks: list[Any] = list(map(known.get, digests))
    parsed_now: dict[Any, Any] = {}
    for index in [index for index, block in enumerate(blocks) if block is None]:
        ((name, body),) = fresh[digests[index]].items()
        try:
            blocks[index] = (name, marshal.dumps(body))
        except ValueError:
            return None
        parsed_now[index] = body
    written = list(map(itemgetter(0), blocks))
    names = dict(zip(written, digests, strict=True))  # first place, last digest
    encoded = dict(zip(written, map(itemgetter(1), blocks), strict=True))  # last body
    decoded = {
        written[index]: body for index, body in parsed_now.items() if names[written[index]] == digests[index]
    }
    return ResourceBodies(names, decoded, encoded), names, dict(zip(digests, blocks, strict=True))


_MISSING = object()
