"""Which stacks a commit touches: table-driven over changed paths, specs and input files."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.source.touched_stacks import TouchedStacks, changed_paths, touched_stacks
from tests.source.git_repos import commit_files, init_repository

SPECS = {"network": ("stacks/network/template.yaml", 1), "app": ("stacks/app/template.yaml", 1)}
INPUTS = {
    "network": {"stacks/network/template.yaml", "environments/common.yaml"},
    "app": {"stacks/app/template.yaml", "stacks/app/node.yaml", "environments/common.yaml"},
}


@pytest.mark.parametrize(
    ("paths", "current", "inputs", "expected"),
    [
        ({"README.md"}, SPECS, INPUTS, TouchedStacks(frozenset(), frozenset())),
        ({"stacks/app/node.yaml"}, SPECS, INPUTS, TouchedStacks(frozenset({"app"}), frozenset())),
        ({"environments/common.yaml"}, SPECS, INPUTS, TouchedStacks(frozenset(SPECS), frozenset())),
        (
            {"reconciler.yaml"},
            {**SPECS, "app": ("stacks/app/template.yaml", 2)},
            INPUTS,
            TouchedStacks(frozenset({"app"}), frozenset()),
        ),
        (
            {"reconciler.yaml"},
            {"network": SPECS["network"]},
            INPUTS,
            TouchedStacks(frozenset(), frozenset({"app"})),
        ),
        (
            {"reconciler.yaml"},
            {**SPECS, "db": ("stacks/db.yaml", 1)},
            INPUTS,
            TouchedStacks(frozenset({"db"}), frozenset()),
        ),
        (
            {"README.md"},
            SPECS,
            {"network": INPUTS["network"]},
            TouchedStacks(frozenset({"app"}), frozenset()),
        ),
    ],
    ids=[
        "unrelated",
        "nested-file",
        "shared-env",
        "entry-changed",
        "stack-removed",
        "stack-added",
        "unknown-inputs",
    ],
)
def test_touched_stacks(
    paths: set[str],
    current: dict[str, object],
    inputs: dict[str, set[str]],
    expected: TouchedStacks,
) -> None:
    assert touched_stacks(paths, SPECS, current, inputs) == expected


def test_changed_paths_between_real_commits_include_both_sides_of_a_rename(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    first = commit_files(repo, {"stacks/a.yaml": "a\n", "keep": "k\n"})
    repo.git.mv("stacks/a.yaml", "stacks/b.yaml")
    second = commit_files(repo, {"stacks/c.yaml": "c\n"})
    assert changed_paths(repo, first, second) == {"stacks/a.yaml", "stacks/b.yaml", "stacks/c.yaml"}
