"""A ResourceGroup's `removal_policies`, as Heat keeps them: names removed once are never reused.

An entry of a `resource_list` names a member by its name ("1") or by its reference (the physical
id `refs` lists). Heat resolves the entries against the members there now, adds the names to a
list it keeps with the group, and skips those names whenever it names members from then on.
`removal_policies_mode: append` (the default) adds to the list kept; `update` starts it again
from the entries written now, so a name taken off the list may be used again.

Here the list kept is the group's recorded `removal_policies`: the coordinator hands the nested
stack the group's properties with `removal_policies` replaced by the whole list of names removed,
so every worker building the group's members from its lineage skips the same names.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from reconciler.templates.nesting import removed_members

POLICIES, MODE, RESOURCE_LIST = "removal_policies", "removal_policies_mode", "resource_list"
APPEND, UPDATE = "append", "update"


def with_removed_names(
    desired: Mapping[str, Any],
    recorded: Mapping[str, Any] | None,
    members: Mapping[str, str | None],
) -> dict[str, Any]:
    """`desired` with `removal_policies` made the whole list of member names removed, sorted.

    `recorded` is the group's properties as last converged (None: the group was never made);
    `members` maps each member there now to its reference.
    """
    kept = set(removed_members(recorded)) if recorded is not None else set()
    start = set() if desired.get(MODE, APPEND) == UPDATE else set(kept)
    names = start | set(_entries_named(desired, kept, members, made=recorded is not None))
    if not names and POLICIES not in desired:
        return dict(desired)  # nothing ever removed: the properties as written
    return {**desired, POLICIES: [{RESOURCE_LIST: sorted(names)}]}


def _entries_named(
    desired: Mapping[str, Any], kept: set[str], members: Mapping[str, str | None], *, made: bool
) -> Iterator[str]:
    """The member names the entries written now stand for (an entry naming nothing is ignored)."""
    by_reference = {reference: name for name, reference in members.items() if reference is not None}
    for policy in desired.get(POLICIES) or []:
        if not isinstance(policy, Mapping):
            continue
        for entry in policy.get(RESOURCE_LIST) or []:
            text = str(entry)
            if text in kept or not made or text in members:
                yield text
            elif isinstance(entry, str) and entry in by_reference:
                yield by_reference[entry]
