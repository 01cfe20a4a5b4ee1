"""Which stacks a commit touches, so only those get a new generation.

A stack is touched when a file it reads changed (its template, nested templates, `get_file`
targets, environments: the `input_files` of its definition, before or after the commit), when its
entry in `reconciler.yaml` changed, or when it is new. A commit touching nothing of a stack does not
disturb it. Removed stacks are reported separately: the engine prunes them.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass

import git

_ABSENT = object()


@dataclass(frozen=True)
class TouchedStacks:
    """The stacks a commit changes: those to (re)load and those that left `reconciler.yaml`."""

    changed: frozenset[str]
    removed: frozenset[str]


def changed_paths(repo: git.Repo, before: str, after: str) -> frozenset[str]:
    """Repository-relative paths that differ between two commits (a rename counts as both paths)."""
    listing: str = repo.git.diff("--name-only", "-z", "--no-renames", before, after)
    return frozenset(path for path in listing.split("\0") if path)


def touched_stacks(
    paths: Collection[str],
    previous_specs: Mapping[str, object],
    current_specs: Mapping[str, object],
    input_files: Mapping[str, Collection[str]],
) -> TouchedStacks:
    """The stacks touched by a commit that changed `paths`.

    `previous_specs` / `current_specs` are the stacks' `reconciler.yaml` entries before and after;
    `input_files` maps a stack to the files its last definition read (missing: unknown, so touched).
    """
    changed = set(paths)
    touched = {
        name
        for name, spec in current_specs.items()
        if previous_specs.get(name, _ABSENT) != spec
        or name not in input_files
        or changed.intersection(input_files[name])
    }
    removed = frozenset(name for name in previous_specs if name not in current_specs)
    return TouchedStacks(changed=frozenset(touched), removed=removed)
