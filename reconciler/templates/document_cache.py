"""Parsed template documents kept by content id, so a file no commit touched is never parsed again.

A git blob id names a file's exact bytes, so the document parsed from it is the same at every
commit that holds that blob: a commit that changes one small file of a stack re-reads nothing of
its large template. The source layer hands the blob id in (`IdentifiedFileSource.blob_id`); without
one nothing is cached. Entries are dropped least recently used first once their files' bytes add up
to more than the budget. The checked model of a template (which depends on its document and path
only) is kept with its document, so an untouched template is not checked again either.

A cached document is shared by every load that finds it, so it is frozen: the `ParsedFile` cannot
be rebound, and the templates layer only reads a document's data (it builds its own containers for
everything it hands out), which the tests check by loading through the cache and comparing the
cached data with a fresh parse afterwards.

One cache serves one loader at a time: callers that load from several threads serialize their loads.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from reconciler.templates.limits import Limits

if TYPE_CHECKING:
    from reconciler.templates.block_parsing import BlockKeeper
    from reconciler.templates.template_model import TemplateModel

DEFAULT_BUDGET_BYTES = 64 * 1024 * 1024  # the files' own bytes: their parsed values take many times more


@dataclass(frozen=True)
class ParsedFile:
    """A file's text, its parsed value and the digest of its bytes (the stack definition's input)."""

    text: str
    data: Any
    content_digest: str  # sha256 of the bytes, hex
    size: int  # bytes
    # A template's resources' text digests, when it was cut at them, and the digest of its other text.
    resource_digests: Mapping[str, bytes] = field(default_factory=dict)
    skeleton_digest: bytes | None = None


def parsed_file(
    content: bytes,
    text: str,
    data: Any,
    resource_digests: Mapping[str, bytes] = MappingProxyType({}),
    skeleton_digest: bytes | None = None,
) -> ParsedFile:
    """The cache entry of a file parsed from `content`."""
    return ParsedFile(
        text, data, hashlib.sha256(content).hexdigest(), len(content), resource_digests, skeleton_digest
    )


class DocumentCache:
    """Parsed documents by (blob id, limits), least recently used dropped past `budget_bytes`.

    `blocks`, when given, keeps the resources of the YAML templates parsed on a miss, so a file
    changed in one resource parses that one. `parses` counts the documents parsed on a miss and
    `hits` those found, `models_built` the template models checked: a second commit that does not
    touch a file leaves `parses` and `models_built` where they were.
    """

    def __init__(
        self, budget_bytes: int = DEFAULT_BUDGET_BYTES, *, blocks: BlockKeeper | None = None
    ) -> None:
        self.budget_bytes = budget_bytes
        # where a file not held is parsed: its resources parsed before are found there
        self.blocks = blocks
        self.parses = 0
        self.hits = 0
        self.models_built = 0
        self._entries: OrderedDict[tuple[str, Limits], ParsedFile] = OrderedDict()
        self._models: dict[tuple[str, Limits], dict[str, TemplateModel]] = {}  # by path, per entry
        self._bytes = 0

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def cached_bytes(self) -> int:
        """The bytes of the files whose documents are held."""
        return self._bytes

    def get(self, blob_id: str, limits: Limits) -> ParsedFile | None:
        """The document parsed from blob `blob_id` within `limits`, if it is held."""
        key = (blob_id, limits)
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
            self.hits += 1
        return found

    def put(self, blob_id: str, limits: Limits, parsed: ParsedFile) -> None:
        """Hold `parsed` as the document of blob `blob_id` (one that was just parsed)."""
        self.parses += 1
        key = (blob_id, limits)
        self._drop(key)
        if parsed.size > self.budget_bytes:
            return  # larger than the whole budget: it would only push everything else out
        self._entries[key] = parsed
        self._bytes += parsed.size
        while self._bytes > self.budget_bytes:
            self._drop(next(iter(self._entries)))

    def model(self, blob_id: str, limits: Limits, path: str) -> TemplateModel | None:
        """The checked model of the template at `path` whose document is blob `blob_id`, if kept."""
        return self._models.get((blob_id, limits), {}).get(path)

    def keep_model(self, blob_id: str, limits: Limits, path: str, model: TemplateModel) -> None:
        """Keep `model` (just checked) with its document, while that document is held."""
        key = (blob_id, limits)
        self.models_built += 1
        if key in self._entries:
            self._models.setdefault(key, {})[path] = model

    def _drop(self, key: tuple[str, Limits]) -> None:
        dropped = self._entries.pop(key, None)
        if dropped is not None:
            self._bytes -= dropped.size
        self._models.pop(key, None)
