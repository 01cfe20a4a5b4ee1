"""`reconciler apply` on a copy of samples-repo converges it on the simulated cloud; again changes nothing."""

from __future__ import annotations

import json
from pathlib import Path

import git
from click.testing import CliRunner

from providers.simulated.provider import SimulatedProvider
from reconciler.cli.demo import make_sample_repository
from reconciler.cli.main import cli
from reconciler.daemon.clouds import sim_cloud_path
from state import open_store
from timekeeping import SystemClock


def samples_copy(destination: Path) -> Path:
    make_sample_repository(destination)
    return destination


def test_apply_converges_the_samples_and_running_again_changes_nothing(tmp_path: Path) -> None:
    repo = samples_copy(tmp_path / "samples-repo-copy")
    database = f"sqlite:///{tmp_path / 'state.sqlite'}"
    runner = CliRunner()

    first = runner.invoke(cli, ["apply", "--repo", str(repo), "--database", database])
    assert first.exit_code == 0, first.output
    assert "network: CONVERGED" in first.output and "app: CONVERGED" in first.output

    second = runner.invoke(cli, ["apply", "--repo", str(repo), "--database", database])
    assert second.exit_code == 0, second.output
    assert "created 0, updated 0, replaced 0, deleted 0" in second.output

    outputs = runner.invoke(cli, ["outputs", "app", "--database", database, "--format", "json"])
    assert outputs.exit_code == 0, outputs.output
    values = json.loads(outputs.output)
    assert values["node_count"] == 2 and len(values["node_addresses"]) == 2
    network = json.loads(
        runner.invoke(cli, ["outputs", "network", "--database", database, "--format", "json"]).output
    )
    assert set(network) == {"net_id", "subnet_id", "security_group"}


def test_apply_exits_1_with_the_reason_when_a_stack_fails(tmp_path: Path) -> None:
    repo = samples_copy(tmp_path / "broken")
    template = repo / "stacks" / "network" / "template.yaml"
    template.write_text(template.read_text().replace("get_resource: net}", "get_resource: no_such_net}", 1))
    git.Repo(repo).git.commit("-am", "break it")

    result = CliRunner().invoke(
        cli, ["apply", "--repo", str(repo), "--database", f"sqlite:///{tmp_path / 's.db'}"]
    )

    assert result.exit_code == 1
    assert "network: INVALID" in result.output and "no_such_net" in result.output
    assert "app: PENDING" in result.output and "waits for stack network, which is INVALID" in result.output


def test_apply_makes_a_stack_wired_to_a_missing_output_invalid_naming_the_stack_and_output(
    tmp_path: Path,
) -> None:
    repo = samples_copy(tmp_path / "miswired")
    config = repo / "reconciler.yaml"
    config.write_text(config.read_text().replace("output: subnet_id}", "output: no_such_output}"))
    git.Repo(repo).git.commit("-am", "wire app to an output network does not have")

    result = CliRunner().invoke(
        cli, ["apply", "--repo", str(repo), "--database", f"sqlite:///{tmp_path / 's.db'}"]
    )

    assert result.exit_code == 1
    assert "network: CONVERGED" in result.output and "app: INVALID" in result.output
    assert "stack 'network' has no output 'no_such_output'" in result.output


def test_outputs_of_an_unknown_stack_is_an_error(tmp_path: Path) -> None:
    database = f"sqlite:///{tmp_path / 's.db'}"
    assert CliRunner().invoke(cli, ["db", "upgrade", "--database", database]).exit_code == 0
    result = CliRunner().invoke(cli, ["outputs", "nope", "--database", database])
    assert result.exit_code == 1 and "no stack named 'nope'" in result.output


def test_apply_refuses_a_dirty_working_tree_unless_told_and_never_records_it_as_head(tmp_path: Path) -> None:
    repo = samples_copy(tmp_path / "dirty")
    template = repo / "stacks" / "network" / "template.yaml"
    template.write_text(template.read_text() + "\n# edited, not committed\n")
    (repo / "notes.txt").write_text("scratch\n")
    database = f"sqlite:///{tmp_path / 's.db'}"
    head = git.Repo(repo).head.commit.hexsha

    refused = CliRunner().invoke(cli, ["apply", "--repo", str(repo), "--database", database])

    assert refused.exit_code == 1
    assert "uncommitted changes (notes.txt, stacks/network/template.yaml)" in refused.output
    assert "--allow-dirty" in refused.output
    applied = CliRunner().invoke(cli, ["apply", "--repo", str(repo), "--database", database, "--allow-dirty"])
    assert applied.exit_code == 0, applied.output
    assert "network: CONVERGED at uncommitted" in applied.output and head[:12] not in applied.output


def test_check_reports_every_resource_and_names_the_missing_one(tmp_path: Path) -> None:
    repo = samples_copy(tmp_path / "checked")
    database = f"sqlite:///{tmp_path / 's.db'}"
    runner = CliRunner()
    assert runner.invoke(cli, ["apply", "--repo", str(repo), "--database", database]).exit_code == 0

    healthy = runner.invoke(cli, ["check", "app", "--repo", str(repo), "--database", database])
    assert healthy.exit_code == 0, healthy.output
    assert "not OK" in healthy.output and ", 0 not OK" in healthy.output

    checks = json.loads(
        runner.invoke(cli, ["check", "app", "--database", database, "--format", "json"]).output
    )
    server = next(check for check in checks if check["type"] == "OS::Nova::Server")
    sim = SimulatedProvider.open(sim_cloud_path(database))
    sim.cloud.vanish("servers", server["physical_id"])
    sim.save()

    broken = runner.invoke(cli, ["check", "app", "--repo", str(repo), "--database", database])
    assert broken.exit_code == 1
    where = f"{server['stack']}: {server['resource']}" if "/" in server["stack"] else server["resource"]
    assert f"{where} [OS::Nova::Server {server['physical_id']}]: missing" in broken.output
    assert ", 2 not OK" in broken.output  # the server, and the attachment of its volume with it


def test_apply_keeps_the_plan_memo_of_a_stack_it_converged_unless_it_has_secrets(tmp_path: Path) -> None:
    repo = samples_copy(tmp_path / "samples-repo-copy")
    database = f"sqlite:///{tmp_path / 'state.sqlite'}"
    applied = CliRunner().invoke(cli, ["apply", "--repo", str(repo), "--database", database])
    assert applied.exit_code == 0, applied.output
    store = open_store(database, clock=SystemClock())
    try:
        network = store.plan_memos().read("network")
        assert network.stamp is not None and network.content is not None
        # a hidden parameter: no digest of anything resolved from it is kept, so no memo either
        assert store.plan_memos().read("app").content is None
    finally:
        store.close()
