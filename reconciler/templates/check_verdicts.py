"""Clean verdicts of a resource's own schema checks, kept with the template's parsed blocks, so a
load of a template changed in one resource checks that resource, not fifty thousand.

A verdict is kept only when the resource's own checks (its properties against its type's schema)
found nothing, and only for a resource whose checked value is its block's text alone: no `if`
(whose branch a condition chooses), no value computed without a cloud (which reads parameters),
not a group, instance group or template resource (whose checks read the environment and other
resources). Its key is a digest of everything those checks read: the block's text (by its digest),
the template's version (which names the functions the text is parsed with), the type the
environment maps the resource to, that type's schema as this process knows it, and the format of
the checks. Any of them changed, the key differs and the resource is checked again. A resource with
a problem is always checked again, so every problem is found afresh, with its file and line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from reconciler.templates.block_parsing import BlockKeeper, block_slot
from reconciler.templates.limits import Limits
from reconciler.templates.stable_reprs import stable_repr
from schemas.resource_schemas import TypeFacts

# Names what the checks do; a change to them starts new slots (no verdict of old checks is read).
VERDICTS_FORMAT = "resource-checks-2"


class CheckVerdicts:
    """The clean verdicts of one template's resources: those kept before, and those found now."""

    def __init__(self, keeper: BlockKeeper | None, path: str, limits: Limits, version: Any) -> None:
        self._keeper = keeper
        self._slot = hashlib.sha256(f"{VERDICTS_FORMAT}\0{block_slot(path, limits)}".encode()).hexdigest()
        self._known: Mapping[bytes, Any] = keeper.known(self._slot) if keeper is not None else {}
        self._clean: dict[bytes, bool] = {}
        self._prefix = f"{VERDICTS_FORMAT}\0{stable_repr(version)}\0".encode()
        self._schema_digests: dict[str, bytes] = {}

    def key(self, block_digest: bytes | None, type_name: str, facts: TypeFacts) -> bytes | None:
        """The key of a resource's verdict; None when its block is not known (not parsed by blocks)."""
        if block_digest is None or self._keeper is None:
            return None
        schema = self._schema_digests.get(facts.name)
        if schema is None:
            schema = self._schema_digests[facts.name] = hashlib.sha256(stable_repr(facts).encode()).digest()
        return hashlib.sha256(
            self._prefix + block_digest + b"\0" + type_name.encode() + b"\0" + schema
        ).digest()

    def clean(self, key: bytes) -> bool:
        """Whether the checks found nothing for the verdict `key` before; it is kept again if so."""
        if key in self._known:
            self._clean[key] = True
            return True
        return False

    def found_clean(self, key: bytes) -> None:
        """The checks found nothing for the verdict `key`."""
        self._clean[key] = True

    def keep(self) -> None:
        """Keep the clean verdicts of this load (those of resources no longer in it are dropped)."""
        if self._keeper is not None:
            self._keeper.keep(self._slot, self._clean)
