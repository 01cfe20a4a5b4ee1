"""Status tells the truth: the database, the notes, the engine's reports and `/metrics` agree.

Given the sample repository converged by a daemon on SQLite and the simulated cloud, when a commit
breaks a stack's template and the next one puts it back as it was, then the fix commit gets its
note, the stack leaves INVALID at once in the database as in the reports, and every status output
names the commit each stack is at.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from reconciler.cli.main import cli
from reconciler.daemon.status_document import declared_views
from state import StackStatus
from tests.daemon.gitops_world import DaemonWorld, notes_on, sample_repository
from tests.source.git_repos import commit_files


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[DaemonWorld, Path]]:
    sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        yield daemon, tmp_path / "repo"
    finally:
        daemon.close()


def _metric_samples(daemon: DaemonWorld) -> list[tuple[str, dict[str, str], float]]:
    text = daemon.daemon.metrics.render().decode()
    return [
        (sample.name, dict(sample.labels), sample.value)
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    ]


def _break_then_fix(daemon: DaemonWorld, path: Path) -> tuple[str, str, str]:
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    template = (path / "stacks" / "network" / "template.yaml").read_text()
    broken = template.replace("cidr: {get_param: cidr}", "cidr: {get_param: [cidr}")
    bad = commit_files(repo, {"stacks/network/template.yaml": broken}, "A typo")
    daemon.follow()
    daemon.daemon.gitops.converge()
    fix = commit_files(repo, {"stacks/network/template.yaml": template}, "Fix the typo")
    daemon.follow()
    return first, bad, fix


def test_a_fix_after_an_invalid_commit_is_noted_and_the_stack_leaves_invalid_in_the_database(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    _first, bad, fix = _break_then_fix(daemon, path)

    reports = daemon.converge(["network"], fix)
    daemon.publish()

    assert str(reports["network"].status) == "CONVERGED"
    assert notes_on(repo, bad)["network"].status == "INVALID"
    fixed = notes_on(repo, fix)["network"]
    assert fixed.status == "CONVERGED"
    assert fixed.counts["created"] == 0  # nothing was made at the fix: the cloud already matched
    row = daemon.daemon.store.read_stack("network")
    assert row is not None and row.status is StackStatus.CONVERGED
    statuses = {
        labels["status"]
        for name, labels, value in _metric_samples(daemon)
        if name == "reconciler_stack_status" and labels["stack"] == "network" and value == 1
    }
    assert statuses == {"CONVERGED"}


def test_metrics_name_every_stack_with_the_commit_it_is_at(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    first, _bad, fix = _break_then_fix(daemon, path)
    daemon.converge(["network"], fix)

    at = {
        labels["stack"]: labels["commit"]
        for name, labels, value in _metric_samples(daemon)
        if name == "reconciler_stack_status" and value == 1
    }

    assert at == {"network": fix, "app": first}


def test_status_of_a_commit_lists_every_declared_stack_at_its_commit(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    first, _bad, fix = _break_then_fix(daemon, path)
    daemon.converge(["network"], fix)
    daemon.publish()

    shown = CliRunner().invoke(cli, ["status", fix, "--repo", str(path), "--format", "json"])
    text = CliRunner().invoke(cli, ["status", fix, "--repo", str(path)])

    assert shown.exit_code == 0, shown.output
    at = {stack["stack"]: (stack["commit"], stack["status"]) for stack in json.loads(shown.output)["stacks"]}
    assert at == {"network": (fix, "CONVERGED"), "app": (first, "CONVERGED")}
    assert f"app: CONVERGED at {first[:12]}" in text.output


def test_stacks_lists_each_stack_with_its_commit(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    first, _bad, fix = _break_then_fix(daemon, path)
    daemon.converge(["network"], fix)
    daemon.publish()

    listed = CliRunner().invoke(cli, ["stacks", "--repo", str(path), "--format", "json"])
    table = CliRunner().invoke(cli, ["stacks", "--repo", str(path)])

    assert listed.exit_code == 0, listed.output
    body = json.loads(listed.output)
    assert body["commit"] == fix
    assert [(s["stack"], s["status"], s["commit"]) for s in body["stacks"]] == [
        ("app", "CONVERGED", first),
        ("network", "CONVERGED", fix),
    ]
    rows = table.output.splitlines()
    assert rows[0].split()[:3] == ["STACK", "STATUS", "COMMIT"]
    assert rows[2].split()[:3] == ["network", "CONVERGED", fix[:12]]


def test_a_stack_never_noted_is_listed_as_pending(tmp_path: Path) -> None:
    _repo, head = sample_repository(tmp_path / "repo")

    listed = CliRunner().invoke(cli, ["stacks", "--repo", str(tmp_path / "repo"), "--format", "json"])

    assert listed.exit_code == 0, listed.output
    assert {(s["stack"], s["status"], s["commit"]) for s in json.loads(listed.output)["stacks"]} == {
        ("app", "PENDING", head),
        ("network", "PENDING", head),
    }


def test_the_status_endpoint_answers_over_http_with_every_stack_and_its_commit(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    first, _bad, fix = _break_then_fix(daemon, path)
    daemon.converge(["network"], fix)
    daemon.daemon.http.start()
    try:
        host, port = daemon.daemon.http.address
        with urllib.request.urlopen(f"http://{host}:{port}/status") as response:
            body = json.loads(response.read())
            kind = response.headers["Content-Type"]
    finally:
        daemon.daemon.http.stop()

    assert kind == "application/json"
    assert body["commit"] == fix
    stacks = {stack["stack"]: stack for stack in body["stacks"]}
    assert (stacks["network"]["status"], stacks["network"]["commit"]) == ("CONVERGED", fix)
    assert (stacks["app"]["status"], stacks["app"]["commit"]) == ("CONVERGED", first)
    assert stacks["app"]["last_sync"] > 0
    assert stacks["app"]["drift_repairs"] == 0


def test_a_stack_waiting_for_anothers_outputs_is_in_the_metrics_as_pending(tmp_path: Path) -> None:
    repo, _first = sample_repository(tmp_path / "repo")
    config = (tmp_path / "repo" / "reconciler.yaml").read_text()
    network_off = config.replace("  network:\n", "  network:\n    auto_apply: false\n", 1)
    commit_files(repo, {"reconciler.yaml": network_off}, "Plan the network only")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        daemon.follow()
        daemon.daemon.gitops.converge()
        at = {
            labels["stack"]: (labels["status"], labels["commit"])
            for name, labels, value in _metric_samples(daemon)
            if name == "reconciler_stack_status" and value == 1
        }
    finally:
        daemon.close()

    assert at["app"] == ("PENDING", "")  # no report yet: network's outputs do not exist


def test_commits_a_push_brought_before_the_newest_are_noted_superseded(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    prod = (path / "environments" / "prod.yaml").read_text()
    three = commit_files(
        repo, {"environments/prod.yaml": prod.replace("node_count: 2", "node_count: 3")}, "3"
    )
    four = commit_files(repo, {"environments/prod.yaml": prod.replace("node_count: 2", "node_count: 4")}, "4")

    daemon.follow()  # both commits arrive at once: only the newest is read
    daemon.converge(["app"], four)
    daemon.publish()

    skipped = notes_on(repo, three)["*"]
    assert skipped.status == "SUPERSEDED"
    assert skipped.failures == (f"superseded by {four[:12]} before it was read",)
    assert notes_on(repo, four)["app"].status == "CONVERGED"
    assert "*" not in notes_on(repo, first)


def test_stacks_another_worker_runs_show_the_commit_the_database_has_them_at(
    world: tuple[DaemonWorld, Path],
) -> None:
    """In a fleet, `/status` reads the stacks held elsewhere from the shared store: their status and
    the commit of the generation that status refers to, never `commit: null`."""
    daemon, path = world
    first, _bad, fix = _break_then_fix(daemon, path)
    daemon.converge(["network"], fix)

    seen_elsewhere = declared_views(["app", "network", "not-yet"], [], daemon.daemon.store.read_stacks)

    at = {view.stack: (view.status, view.commit, view.held) for view in seen_elsewhere}
    assert at == {
        "app": ("CONVERGED", first, False),
        "network": ("CONVERGED", fix, False),
        "not-yet": ("PENDING", None, False),
    }
