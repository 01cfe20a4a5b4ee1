"""Rendering notes for people, and `reconciler status` on a real repository."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli
from reconciler.source.note_lines import (
    REPOSITORY_SCOPE,
    NoteLine,
    PlannedActions,
    PlannedChange,
    Problem,
    PropertyChange,
    parse_note,
    render_note,
)
from reconciler.source.note_rendering import MARKDOWN_LIMIT, render_json, render_markdown, render_text
from reconciler.source.notes_store import NotesStore
from tests.source.git_repos import commit_files, init_repository

SHA = "1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d"

CONVERGED = NoteLine(
    kind="convergence",
    stack="network",
    commit=SHA,
    status="CONVERGED",
    at=5.0,
    counts={"created": 5, "unchanged": 0},
)
PLANNED = NoteLine(
    kind="plan",
    stack="app",
    commit=SHA,
    status="PLANNED",
    at=5.0,
    plan=PlannedActions(
        create=(PlannedChange("key"),),
        update=(PlannedChange("server", changes=(PropertyChange("name", "web", "web-2"),)),),
        replace=(PlannedChange("port", because=("network",)),),
        delete=(PlannedChange("old"),),
        unchanged=3,
    ),
)
KEEPING = NoteLine(
    kind="convergence",
    stack="storage",
    commit=SHA,
    status="CONVERGED",
    at=5.0,
    counts={"deleted": 1, "retained": 1},
    kept=(
        "archive (v-2): snapshot b-1 made before it was deleted",
        "data (v-1): retained: left in the cloud",
    ),
)
RETAINING = NoteLine(
    kind="plan",
    stack="storage",
    commit=SHA,
    status="PLANNED",
    at=5.0,
    plan=PlannedActions(delete=(PlannedChange("archive"), PlannedChange("data", retained=True))),
)
INVALID = NoteLine(
    kind="convergence",
    stack=REPOSITORY_SCOPE,
    commit=SHA,
    status="INVALID",
    at=5.0,
    problems=(Problem("stacks/app/template.yaml", 12, "unknown function get_atr"),),
)


def test_note_lines_survive_the_round_trip_through_text() -> None:
    lines = [CONVERGED, PLANNED, INVALID]
    assert sorted(parse_note(render_note(lines)), key=lambda line: line.stack) == sorted(
        lines, key=lambda line: line.stack
    )


def test_what_deletion_policies_kept_survives_the_round_trip_and_is_shown() -> None:
    assert parse_note(render_note([KEEPING])) == [KEEPING]
    assert parse_note(render_note([RETAINING])) == [RETAINING]

    text = render_text(SHA, [KEEPING, RETAINING])

    assert "      kept: data (v-1): retained: left in the cloud" in text
    assert "storage: plan: 0 to create, 0 to update, 0 to replace, 1 to delete, 1 to retain" in text
    assert "      = data (retained: leaves management, stays in the cloud)" in text
    assert "kept: archive (v-2): snapshot b-1 made before it was deleted" in render_markdown(SHA, [KEEPING])


def test_text_names_status_counts_actions_and_problems() -> None:
    text = render_text(SHA, [CONVERGED, PLANNED, INVALID])
    assert "network: CONVERGED (created 5, updated 0, replaced 0, deleted 0, unchanged 0)" in text
    assert "app: plan: 1 to create, 1 to update, 1 to replace, 1 to delete, 3 unchanged" in text
    assert "± port (replaced because of: network)" in text
    assert "stacks/app/template.yaml:12: unknown function get_atr" in text


def test_markdown_is_a_comment_with_a_table_and_the_plan() -> None:
    markdown = render_markdown(SHA, [CONVERGED, PLANNED])
    assert "| network | **CONVERGED** | 5 | 0 | 0 | 0 | 0 |" in markdown
    assert "- ⚠️ **destructive** `±` **replace** `port (replaced because of: network)`" in markdown


def test_markdown_plans_are_a_summary_table_then_details_per_stack_destructive_first() -> None:
    markdown = render_markdown(SHA, [PLANNED, RETAINING])

    table = markdown.index("| stack | create | update | replace | delete | unchanged | destructive |")
    assert "| app | 1 | 1 | 1 | 1 | 3 | **2** ⚠️ |" in markdown
    assert "| storage | 0 | 0 | 0 | 2 | 0 | **1** ⚠️ |" in markdown
    app = markdown.index("<summary><b>app</b>: 1 to create, 1 to update, 1 to replace, 1 to delete")
    assert table < app < markdown.index("</details>", app)
    details = markdown[app : markdown.index("</details>", app)]
    order = [details.index(f"**{action}**") for action in ("delete", "replace", "update", "create")]
    assert order == sorted(order)
    assert "- ⚠️ **destructive** `-` **delete** `old`" in details
    assert '  - `name: "web" -> "web-2"`' in details
    assert "- `-` **delete** `data (retained: leaves management, stays in the cloud)`" in markdown


def test_notes_written_before_entries_carried_details_are_read() -> None:
    plan = {
        "create": ["a"],
        "deferred": ["b"],
        "delete": ["c"],
        "diffs": {"d": [{"new": 2, "old": 1, "property": "size"}]},
        "replace": [{"because": ["size"], "resource": "d"}],
        "retain": ["e"],
        "unchanged": 1,
        "update": [],
    }
    body = {"at": 1, "commit": SHA, "kind": "plan", "plan": plan, "stack": "s", "status": "PLANNED"}
    old = json.dumps(body)
    (line,) = parse_note(old)
    assert line.plan == PlannedActions(
        create=(PlannedChange("a"),),
        update=(PlannedChange("b"),),
        replace=(PlannedChange("d", changes=(PropertyChange("size", 1, 2),), because=("size",)),),
        delete=(PlannedChange("c"), PlannedChange("e", retained=True)),
        unchanged=1,
    )


@pytest.mark.parametrize(("stacks", "resources"), [(1, 20_000), (3_000, 10), (20_000, 0)])
def test_markdown_stays_under_the_comment_limit_by_summarizing(stacks: int, resources: int) -> None:
    lines = [
        NoteLine(
            kind="plan",
            stack=f"stack-{index:05d}",
            commit=SHA,
            status="PLANNED",
            at=1.0,
            plan=PlannedActions(create=tuple(PlannedChange(f"server-{n:06d}") for n in range(resources))),
        )
        for index in range(stacks)
    ]
    markdown = render_markdown(SHA, lines)
    assert len(markdown) < MARKDOWN_LIMIT
    assert "stack-00000" in markdown


def test_json_keeps_the_newest_line_per_stack() -> None:
    older = NoteLine(kind="convergence", stack="network", commit=SHA, status="PROGRESSING", at=1.0)
    body = json.loads(render_json(SHA, [older, CONVERGED]))
    assert [(stack["stack"], stack["status"]) for stack in body["stacks"]] == [("network", "CONVERGED")]


def test_status_command_renders_the_note_of_a_revision(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    first = commit_files(repo, {"reconciler.yaml": "stacks: {}\n"})
    commit_files(repo, {"README": "x\n"})
    NotesStore(repo).write(dataclasses.replace(CONVERGED, commit=first))
    runner = CliRunner()

    shown = runner.invoke(cli, ["status", first, "--repo", str(tmp_path / "repo"), "--format", "markdown"])
    assert shown.exit_code == 0, shown.output
    assert "| network | **CONVERGED** |" in shown.output

    head = runner.invoke(cli, ["status", "--repo", str(tmp_path / "repo")])
    assert head.exit_code == 0
    assert "no reconciler note" in head.output

    missing = runner.invoke(cli, ["status", "nope", "--repo", str(tmp_path / "repo")])
    assert missing.exit_code == 1
    assert "nope: no such commit" in missing.output


def test_status_command_reads_the_notes_ref_the_commit_names(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    sha = commit_files(repo, {"reconciler.yaml": "notes_ref: refs/notes/ops\nstacks: {}\n"})
    NotesStore(repo, "refs/notes/ops").write(dataclasses.replace(CONVERGED, commit=sha))
    shown = CliRunner().invoke(cli, ["status", "--repo", str(tmp_path / "repo"), "--format", "json"])
    assert json.loads(shown.output)["stacks"][0]["status"] == "CONVERGED"
