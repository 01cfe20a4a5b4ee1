"""`reconciler plan` on a real repository against the state a daemon recorded."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git
from click.testing import CliRunner

from reconciler.cli.main import cli
from state import open_store
from tests.daemon.gitops_world import DaemonWorld, sample_repository
from tests.source.git_repos import commit_files
from timekeeping import SystemClock


def _converged_sample(tmp_path: Path) -> tuple[git.Repo, str, str]:
    """The sample repository converged by a daemon: the repository, its commit, the database."""
    repo, first = sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        daemon.follow()
        daemon.converge(["network", "app"], first)
    finally:
        daemon.close()
    return repo, first, f"sqlite:///{tmp_path / 'state' / 'state.sqlite'}"


def _planned_with_a_resource_added(repo: git.Repo, database: str) -> dict[str, Any]:
    """`reconciler plan --format json` of a commit adding a resource to the network stack, by stack."""
    template_path = Path(repo.working_dir) / "stacks" / "network" / "template.yaml"
    added = template_path.read_text().replace("outputs:", "  extra:\n    type: OS::Heat::None\n\noutputs:")
    commit_files(repo, {"stacks/network/template.yaml": added}, "Add a resource")
    shown = CliRunner().invoke(
        cli, ["plan", "--repo", str(repo.working_dir), "--database", database, "--format", "json"]
    )
    assert shown.exit_code == 2, shown.output  # something would change
    stacks = {stack["stack"]: stack for stack in json.loads(shown.output)["stacks"]}
    assert stacks["network"]["plan"]["create"] == [{"resource": "extra", "type": "OS::Heat::None"}]
    assert stacks["network"]["plan"]["unchanged"] == 5
    return stacks


def test_plan_shows_the_change_of_a_commit_without_applying_it(tmp_path: Path) -> None:
    repo, first, database = _converged_sample(tmp_path)

    stacks = _planned_with_a_resource_added(repo, database)

    assert stacks["app"]["plan"]["create"] == []
    store = open_store(database, clock=SystemClock())
    newest = store.newest_generation("network")
    store.close()
    assert newest is not None and newest.commit_sha == first  # planned, not applied


def test_plan_of_a_broken_reconciler_yaml_names_the_file_and_exits_1(tmp_path: Path) -> None:
    repo, _first = sample_repository(tmp_path / "repo")
    commit_files(repo, {"reconciler.yaml": "stacks: [\n"}, "Broken")
    shown = CliRunner().invoke(
        cli, ["plan", "--repo", str(tmp_path / "repo"), "--database", f"sqlite:///{tmp_path / 's.sqlite'}"]
    )
    assert shown.exit_code == 1
    assert "reconciler.yaml:" in shown.output


def test_plan_shows_each_changed_property_old_and_new_with_secrets_masked(tmp_path: Path) -> None:
    repo, first = sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        daemon.follow()
        daemon.converge(["network", "app"], first)
    finally:
        daemon.close()
    path = tmp_path / "repo" / "stacks" / "network" / "template.yaml"
    template = path.read_text()
    template = template.replace("      name: app-net\n", "      name: app-net-2\n")
    template = template.replace(
        "      description: HTTP and SSH in\n", "      description: {get_param: secret_text}\n"
    )
    template = template.replace(
        "parameters:\n",
        "parameters:\n  secret_text:\n    type: string\n    hidden: true\n    default: s3cr3t\n",
        1,
    )
    commit_files(repo, {"stacks/network/template.yaml": template}, "Rename the network, hide a description")
    database = f"sqlite:///{tmp_path / 'state' / 'state.sqlite'}"

    shown = CliRunner().invoke(
        cli, ["plan", "--repo", str(tmp_path / "repo"), "--database", database, "--format", "json"]
    )

    assert shown.exit_code == 2, shown.output
    plan = {stack["stack"]: stack for stack in json.loads(shown.output)["stacks"]}["network"]["plan"]
    updates = {entry["resource"]: entry for entry in plan["update"]}
    assert set(updates) == {"net", "web_security_group"}
    assert updates["net"]["changes"] == [{"property": "name", "old": "app-net", "new": "app-net-2"}]
    assert updates["web_security_group"]["changes"] == [
        {"property": "description", "old": "******", "new": "******"}
    ]
    assert "s3cr3t" not in shown.output
    text = CliRunner().invoke(cli, ["plan", "--repo", str(tmp_path / "repo"), "--database", database])
    assert '~ net: name: "app-net" -> "app-net-2"' in text.output


def test_a_stack_the_daemon_converged_has_its_plan_memo_and_plans_of_changes_read_it(tmp_path: Path) -> None:
    repo, _first, database = _converged_sample(tmp_path)
    store = open_store(database, clock=SystemClock())
    try:
        kept = store.plan_memos().read("network")
        assert kept.stamp is not None and kept.content is not None  # made once the stack converged
        _planned_with_a_resource_added(repo, database)
        assert store.plan_memos().read("network") == kept  # the plan wrote no record: still the same memo
    finally:
        store.close()


def test_plan_reads_a_template_over_heats_size_limit_once_reconciler_yaml_raises_it(tmp_path: Path) -> None:
    repo, _first, database = _converged_sample(tmp_path)
    path = Path(repo.working_dir) / "stacks" / "network" / "template.yaml"
    grown = path.read_text().replace("outputs:", "  extra:\n    type: OS::Heat::None\n\noutputs:")
    commit_files(repo, {"stacks/network/template.yaml": grown + "#" * (600 * 1024) + "\n"}, "Grow")
    arguments = ["plan", "--repo", str(repo.working_dir), "--database", database, "--format", "json"]

    refused = CliRunner().invoke(cli, arguments)
    assert refused.exit_code == 1
    assert "stacks/network/template.yaml" in refused.output
    assert "over the limit of 524288 bytes" in refused.output

    config = (Path(repo.working_dir) / "reconciler.yaml").read_text()
    commit_files(repo, {"reconciler.yaml": config + "limits:\n  max_template_size: 2097152\n"}, "Raise")
    shown = CliRunner().invoke(cli, arguments)
    assert shown.exit_code == 2, shown.output
    stacks = {stack["stack"]: stack for stack in json.loads(shown.output)["stacks"]}
    assert stacks["network"]["plan"]["create"] == [{"resource": "extra", "type": "OS::Heat::None"}]
