"""What the cloud holds against what the newest commit wants: duplicates, orphans, missing.

Pure: it reads an inventory (the cloud's items per kind, as its list APIs show them) and the names
the newest commit wants, and counts. One name is one template resource (see `workload`), so:

- a duplicate is a cloud resource beyond the first one carrying a wanted name;
- a same-marker duplicate is one beyond the first carrying the very same reconciler marker (tags
  and metadata): one record's create sent twice;
- an orphan is a cloud resource with a reconciler marker whose name no stack wants any more;
- missing is a wanted name the cloud does not hold;
- surplus is how many more resources of a kind the cloud holds than the commit wants.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

MARKER_PREFIX = "reconciler"  # every tag and metadata key the reconciler writes starts with it


@dataclass(frozen=True)
class CloudItem:
    """One cloud resource as the audit needs it: its id, name and the reconciler's marks on it."""

    kind: str
    id: str
    name: str
    marks: tuple[str, ...]

    @classmethod
    def from_body(cls, kind: str, body: Mapping[str, Any]) -> CloudItem:
        """From a list API's JSON body: tags (Nova, Neutron) and metadata (Nova, Cinder)."""
        tags = [str(tag) for tag in body.get("tags") or () if str(tag).startswith(MARKER_PREFIX)]
        metadata = body.get("metadata") or {}
        pairs = [f"{key}={value}" for key, value in metadata.items() if str(key).startswith(MARKER_PREFIX)]
        return cls(kind, str(body.get("id")), str(body.get("name") or ""), tuple(sorted(tags + pairs)))

    @property
    def marked(self) -> bool:
        return bool(self.marks)


@dataclass(frozen=True)
class Audit:
    """The counts, per kind and in total, with a few names of each for the report."""

    duplicates: Mapping[str, int]
    same_marker_duplicates: Mapping[str, int]
    orphans: Mapping[str, int]
    missing: Mapping[str, int]
    surplus: Mapping[str, int]
    unmarked: Mapping[str, int]
    examples: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def total_duplicates(self) -> int:
        return sum(self.duplicates.values())

    @property
    def total_orphans(self) -> int:
        return sum(self.orphans.values())

    @property
    def total_missing(self) -> int:
        return sum(self.missing.values())

    @property
    def clean(self) -> bool:
        return not (self.total_duplicates or self.total_orphans or self.total_missing)

    def summary(self) -> str:
        def per_kind(counts: Mapping[str, int]) -> str:
            shown = ", ".join(f"{kind} {count}" for kind, count in counts.items() if count)
            return f"{sum(counts.values())}" + (f" ({shown})" if shown else "")

        return (
            f"duplicates {per_kind(self.duplicates)}, same-marker {per_kind(self.same_marker_duplicates)}, "
            f"orphans {per_kind(self.orphans)}, missing {per_kind(self.missing)}, "
            f"surplus {per_kind(self.surplus)}, unmarked {per_kind(self.unmarked)}"
        )


EXAMPLES_PER_FIGURE = 5


def _beyond_first(keys: Iterable[str]) -> tuple[int, list[str]]:
    counts = Counter(keys)
    repeated = sorted(key for key, count in counts.items() if count > 1)
    return sum(count - 1 for count in counts.values()), repeated


def audit(inventory: Mapping[str, Iterable[CloudItem]], wanted: Mapping[str, frozenset[str]]) -> Audit:
    """Count what `inventory` holds against the `wanted` names, per kind."""
    duplicates: dict[str, int] = {}
    same_marker: dict[str, int] = {}
    orphans: dict[str, int] = {}
    missing: dict[str, int] = {}
    surplus: dict[str, int] = {}
    unmarked: dict[str, int] = {}
    examples: dict[str, list[str]] = {"duplicates": [], "orphans": [], "missing": []}
    for kind, names in wanted.items():
        items = list(inventory.get(kind, ()))
        held = [item for item in items if item.name in names]
        duplicates[kind], repeated = _beyond_first(item.name for item in held)
        same_marker[kind], _ = _beyond_first("|".join(item.marks) for item in items if item.marked)
        leftovers = sorted(item.name for item in items if item.marked and item.name not in names)
        orphans[kind] = len(leftovers)
        absent = sorted(names - {item.name for item in held})
        missing[kind] = len(absent)
        surplus[kind] = max(0, len(items) - len(names))
        unmarked[kind] = sum(1 for item in items if not item.marked)
        examples["duplicates"] += repeated[:EXAMPLES_PER_FIGURE]
        examples["orphans"] += leftovers[:EXAMPLES_PER_FIGURE]
        examples["missing"] += absent[:EXAMPLES_PER_FIGURE]
    return Audit(
        duplicates=duplicates,
        same_marker_duplicates=same_marker,
        orphans=orphans,
        missing=missing,
        surplus=surplus,
        unmarked=unmarked,
        examples={key: tuple(names) for key, names in examples.items()},
    )
