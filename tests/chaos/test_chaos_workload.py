"""The chaos workload is a repository the reconciler accepts, and the names it wants follow its sizes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bench.chaos.workload import Sizes, repository_files, resource_count, wanted_names
from reconciler.cli.main import cli


def test_the_change_shrinks_one_fleet_grows_the_other_and_reshapes_storage() -> None:
    before, after = Sizes.at(250, 0), Sizes.at(250, 1)
    assert (after.fleet_a, after.fleet_b) == (200, 300)
    assert (after.storage_volumes, after.storage_ports) == (225, 275)
    assert resource_count(before) == 3 * 250 * 2 + 2 * 250 == 2000
    assert resource_count(after) == 3 * 500 + 225 + 275


def test_every_wanted_name_is_one_template_resource() -> None:
    names = wanted_names(Sizes(2, 1, 1, 2))
    assert names["servers"] == {"fleet-a-0", "fleet-a-1", "fleet-b-0"}
    assert names["ports"] == {
        "fleet-a-0-port",
        "fleet-a-1-port",
        "fleet-b-0-port",
        "storage-port-0",
        "storage-port-1",
    }
    assert names["volumes"] == {"fleet-a-0-vol", "fleet-a-1-vol", "fleet-b-0-vol", "storage-vol-0"}


@pytest.mark.parametrize(
    ("template", "options"),
    [
        ("stacks/network.yaml", []),
        (
            "stacks/fleet.yaml",
            ["-P", "net_id=n", "-P", "prefix=p", "-P", "count=3", "-e", "environments/nodes.yaml"],
        ),
        ("stacks/storage.yaml", ["-P", "net_id=n"]),
    ],
)
def test_the_workload_templates_validate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, template: str, options: list[str]
) -> None:
    for path, text in repository_files(Sizes(3, 3, 2, 2), "chaos").items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["validate", template, *options])
    assert result.exit_code == 0, result.output
