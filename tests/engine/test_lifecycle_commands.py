"""`reconciler abandon` and `reconciler adopt` on a copy of samples-repo and the simulated cloud: what
they print, what they leave in the cloud, and what `apply` does with an abandoned stack after."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from providers.simulated.provider import SimulatedProvider
from reconciler.cli.demo import make_sample_repository
from reconciler.cli.main import cli
from reconciler.daemon.clouds import sim_cloud_path

COLLECTIONS = ("networks", "subnets", "routers", "ports", "security_groups", "servers", "volumes")


def cloud_ids(database: str) -> dict[str, list[str]]:
    cloud = SimulatedProvider.open(sim_cloud_path(database)).cloud
    return {name: sorted(item["id"] for item in cloud.list(name)) for name in COLLECTIONS}


def applied(tmp_path: Path) -> tuple[Path, str]:
    repo = tmp_path / "repo"
    make_sample_repository(repo)
    database = f"sqlite:///{tmp_path / 's.db'}"
    result = CliRunner().invoke(cli, ["apply", "--repo", str(repo), "--database", database])
    assert result.exit_code == 0, result.output
    return repo, database


def test_abandon_prints_heats_abandon_data_and_apply_then_leaves_the_stack_alone(tmp_path: Path) -> None:
    repo, database = applied(tmp_path)
    before = cloud_ids(database)
    runner = CliRunner()

    abandoned = runner.invoke(cli, ["abandon", "network", "--repo", str(repo), "--database", database])

    assert abandoned.exit_code == 0, abandoned.output
    data = json.loads(abandoned.output)
    assert (data["name"], data["status"]) == ("network", "COMPLETE")
    assert data["template"]["heat_template_version"] and "parameters" in data["environment"]
    net = data["resources"]["net"]
    assert net["type"] == "OS::Neutron::Net" and net["resource_id"] in before["networks"]
    assert cloud_ids(database) == before
    again = runner.invoke(cli, ["apply", "--repo", str(repo), "--database", database])
    assert "network: ABANDONED" in again.output and "not managed" in again.output
    assert "app: CONVERGED" in again.output  # it keeps the outputs network had
    assert cloud_ids(database) == before
    twice = runner.invoke(cli, ["abandon", "network", "--database", database])
    assert twice.exit_code == 1 and "abandoned already" in twice.output


def test_adopt_takes_the_abandon_data_back_creating_nothing(tmp_path: Path) -> None:
    repo, database = applied(tmp_path)
    before = cloud_ids(database)
    runner = CliRunner()
    data = runner.invoke(cli, ["abandon", "network", "--database", database]).output
    adopt_file = tmp_path / "network-abandoned.json"
    adopt_file.write_text(data)

    adopted = runner.invoke(
        cli, ["adopt", "network", str(adopt_file), "--repo", str(repo), "--database", database]
    )

    assert adopted.exit_code == 0, adopted.output
    assert "network: CONVERGED" in adopted.output and "created 0" in adopted.output
    assert cloud_ids(database) == before
    checked = runner.invoke(cli, ["check", "network", "--database", database])
    assert checked.exit_code == 0, checked.output


def test_adopt_refuses_a_bad_map_whole_naming_each_problem(tmp_path: Path) -> None:
    repo, database = applied(tmp_path)
    runner = CliRunner()
    data = json.loads(runner.invoke(cli, ["abandon", "network", "--database", database]).output)
    before = cloud_ids(database)
    hand_written = {name: entry["resource_id"] for name, entry in data["resources"].items()}
    hand_written["nonexistent"] = hand_written.pop("router")
    hand_written["net"] = "3f6b2a7e-0000-4000-8000-000000000003"
    adopt_file = tmp_path / "adopt.yaml"
    adopt_file.write_text(json.dumps(hand_written))

    refused = runner.invoke(
        cli, ["adopt", "network", str(adopt_file), "--repo", str(repo), "--database", database]
    )

    assert refused.exit_code == 1
    assert "network: INVALID" in refused.output
    assert f"{adopt_file}: resource nonexistent does not exist in the template" in refused.output
    assert f"{adopt_file}: resource router (OS::Neutron::Router) is not named" in refused.output
    assert (
        f"{adopt_file}: resource net: no OS::Neutron::Net 3f6b2a7e-0000-4000-8000-000000000003"
        in refused.output
    )
    assert cloud_ids(database) == before
