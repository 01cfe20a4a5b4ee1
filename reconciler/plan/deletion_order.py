"""Prune order from recorded state alone: a resource goes only after those that refer to it.

What left the template has no definition any more, so its dependencies are read from what was
applied: a record whose applied properties contain another record's physical id depends on it.
That covers every `get_resource` / `get_attr` reference; an explicit `depends_on` between two
pruned resources leaves no trace in properties and is not ordered.
"""

from __future__ import annotations

import graphlib
from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.plan.recorded import RecordedResource


def string_leaves(value: Any) -> Iterator[str]:
    """Every string inside a JSON-like value (where physical ids of other resources hide)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from string_leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from string_leaves(item)


def recorded_references(records: Mapping[str, RecordedResource]) -> Mapping[str, frozenset[str]]:
    """record name -> the names of the records whose physical ids its applied properties contain."""
    by_physical_id = {record.physical_id: name for name, record in records.items() if record.physical_id}
    references: dict[str, frozenset[str]] = {}
    for name, record in records.items():
        found = {by_physical_id[leaf] for leaf in string_leaves(record.properties) if leaf in by_physical_id}
        found.discard(name)
        references[name] = frozenset(found)
    return references


def deletion_waves(
    doomed: frozenset[str], records: Mapping[str, RecordedResource]
) -> tuple[tuple[str, ...], ...]:
    """The `doomed` records in waves: each wave only after every record referring to it is gone."""
    references = recorded_references({name: records[name] for name in doomed if name in records})
    sorter: graphlib.TopologicalSorter[str] = graphlib.TopologicalSorter()
    for name in doomed:
        sorter.add(name)
        for referenced in references.get(name, frozenset()):
            sorter.add(referenced, name)  # the referenced one is deleted after `name`
    try:
        sorter.prepare()
    except graphlib.CycleError:  # records referring to each other: no order is right, delete together
        return (tuple(sorted(doomed)),)
    waves: list[tuple[str, ...]] = []
    while sorter.is_active():
        wave = tuple(sorted(sorter.get_ready()))
        waves.append(wave)
        sorter.done(*wave)
    return tuple(waves)
