"""Approval of destructive changes: replacements and deletions wait in git for `reconciler approve`.

Given the sample repository with `require_approval: [replace, delete]` under `defaults`, converged
by a daemon on SQLite and the simulated cloud, when a commit would delete or replace resources,
then the stack stays PENDING_APPROVAL with those actions named in its note and nothing deleted,
until `reconciler approve REV --stack S` writes the approval into git; then it converges.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli
from reconciler.source.approvals import APPROVALS_REF, approvals_of
from tests.daemon.gitops_world import DaemonWorld, notes_on, sample_repository
from tests.source.git_repos import commit_files


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[DaemonWorld, Path, str]]:
    repo, _first = sample_repository(tmp_path / "repo")
    config = (tmp_path / "repo" / "reconciler.yaml").read_text()
    gated = config.replace("  prune: true\n", "  prune: true\n  require_approval: [replace, delete]\n")
    head = commit_files(repo, {"reconciler.yaml": gated}, "Destructive changes wait for approval")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    daemon.follow()
    daemon.converge(["network", "app"], head)
    try:
        yield daemon, tmp_path / "repo", head
    finally:
        daemon.close()


def _approve(path: Path, commit: str, stack: str) -> None:
    result = CliRunner().invoke(cli, ["approve", commit, "--stack", stack, "--repo", str(path)])
    assert result.exit_code == 0, result.output


def test_a_deletion_waits_for_approval_then_goes_ahead(
    world: tuple[DaemonWorld, Path, str], caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="reconciler.events")
    daemon, path, _head = world
    repo = daemon.daemon.repository.repo
    prod = (path / "environments" / "prod.yaml").read_text()
    fewer = commit_files(
        repo, {"environments/prod.yaml": prod.replace("node_count: 2", "node_count: 1")}, "One"
    )

    daemon.follow()
    waiting = daemon.converge(["app"], fewer)["app"]
    daemon.publish()

    assert str(waiting.status) == "PENDING_APPROVAL"
    assert daemon.cloud_counts()["servers"] == 2  # nothing deleted
    note = notes_on(repo, fewer)["app"]
    assert note.status == "PENDING_APPROVAL"
    assert any("delete waits for approval" in failure for failure in note.failures)
    shown = CliRunner().invoke(cli, ["status", fewer, "--repo", str(path)])
    assert "app: PENDING_APPROVAL" in shown.output
    logged = [r.getMessage() for r in caplog.records if r.name == "reconciler.events"]
    assert any(line.startswith(f"stack app approval_waiting at {fewer[:12]}") for line in logged), logged

    _approve(path, fewer, "app")
    daemon.follow()
    approved = daemon.converge(["app"], fewer)["app"]
    daemon.publish()

    assert str(approved.status) == "CONVERGED"
    assert daemon.cloud_counts()["servers"] == 1
    assert notes_on(repo, fewer)["app"].status == "CONVERGED"


KEYS_TEMPLATE = """heat_template_version: 2018-08-31
resources:
  deploy_key:
    type: OS::Nova::KeyPair
    properties:
      name: {name}
"""


def test_a_replacement_waits_and_an_approval_of_another_stack_does_not_release_it(
    world: tuple[DaemonWorld, Path, str],
) -> None:
    daemon, path, _head = world
    repo = daemon.daemon.repository.repo
    config = (path / "reconciler.yaml").read_text() + "  keys:\n    template: stacks/keys/template.yaml\n"
    added = commit_files(
        repo,
        {"reconciler.yaml": config, "stacks/keys/template.yaml": KEYS_TEMPLATE.format(name="deploy-1")},
        "A stack of its own key pair",
    )
    daemon.follow()
    assert str(daemon.converge(["keys"], added)["keys"].status) == "CONVERGED"  # creating needs none
    cloud = daemon.daemon.clouds.simulated().cloud
    renamed = commit_files(
        repo, {"stacks/keys/template.yaml": KEYS_TEMPLATE.format(name="deploy-2")}, "Rotate the key"
    )

    daemon.follow()
    assert str(daemon.converge(["keys"], renamed)["keys"].status) == "PENDING_APPROVAL"
    _approve(path, renamed, "app")
    daemon.follow()
    still = daemon.converge(["keys"], renamed)["keys"]

    assert str(still.status) == "PENDING_APPROVAL"
    assert "deploy-1" in {pair["name"] for pair in cloud.list("keypairs")}
    assert approvals_of(repo, renamed) == frozenset({"app"})

    _approve(path, renamed, "keys")
    daemon.follow()
    replaced = daemon.converge(["keys"], renamed)["keys"]

    assert str(replaced.status) == "CONVERGED"
    assert replaced.counts.replaced == 1
    names = {pair["name"] for pair in cloud.list("keypairs")}
    assert "deploy-2" in names and "deploy-1" not in names


def test_approve_refuses_a_stack_the_commit_does_not_declare(world: tuple[DaemonWorld, Path, str]) -> None:
    _daemon, path, head = world
    result = CliRunner().invoke(cli, ["approve", head, "--stack", "nope", "--repo", str(path)])

    assert result.exit_code == 1
    assert "declares no stack named 'nope'" in result.output
    assert APPROVALS_REF == "refs/notes/reconciler-approvals"
