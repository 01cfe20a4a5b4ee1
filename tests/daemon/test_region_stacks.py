"""Scenario: the daemon, its simulated cloud serving RegionTwo (`sim_regions`), builds an
OS::Heat::Stack whose context names RegionTwo there, and a daemon started anew on the same state
repairs drift of it there."""

from __future__ import annotations

import time
from pathlib import Path

import yaml
from click.testing import CliRunner

from reconciler.cli.main import cli
from reconciler.daemon.assembly import DATABASE_FILE
from tests.daemon.gitops_world import DaemonWorld
from tests.source.git_repos import commit_files, init_repository

FAR = {
    "heat_template_version": "2018-08-31",
    "resources": {"net": {"type": "OS::Neutron::Net", "properties": {"name": "far-net"}}},
}
STACK = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "near": {"type": "OS::Neutron::Net", "properties": {"name": "near-net"}},
        "far": {
            "type": "OS::Heat::Stack",
            "properties": {"context": {"region_name": "RegionTwo"}, "template": yaml.safe_dump(FAR)},
        },
    },
}
CONFIG = {
    "defaults": {"cloud": "sim", "observe_interval": 0.5},
    "stacks": {"regions": {"template": "stack.yaml"}},
}


def _names(daemon: DaemonWorld, region: str) -> list[str]:
    cloud = daemon.daemon.clouds.simulated().cloud.in_region(region)
    return sorted(
        str(body.get("name"))
        for body in cloud.items("networks")
        if body.get("name") in ("near-net", "far-net")
    )


def _checked(tmp_path: Path) -> tuple[int, str]:
    """`reconciler check` of the stack: its exit code, and the verdict on the nested stack's network."""
    database = f"sqlite:///{tmp_path / 'state' / DATABASE_FILE}"
    result = CliRunner().invoke(cli, ["check", "regions", "--database", database])
    (line,) = [line for line in result.output.splitlines() if line.startswith("regions/far: net ")]
    return result.exit_code, line.rsplit("]: ", 1)[1]


def test_a_remote_stack_in_another_region_is_built_and_repaired_there_across_a_restart(
    tmp_path: Path,
) -> None:
    repo = init_repository(tmp_path / "repo")
    commit = commit_files(
        repo, {"reconciler.yaml": yaml.safe_dump(CONFIG), "stack.yaml": yaml.safe_dump(STACK)}, "Regions"
    )
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state", sim_regions="RegionTwo")
    try:
        daemon.follow()
        report = daemon.converge(["regions"], commit)["regions"]
        assert str(report.status) == "CONVERGED", report.failures
        assert (_names(daemon, "RegionOne"), _names(daemon, "RegionTwo")) == (["near-net"], ["far-net"])
        (far,) = [b for b in daemon.daemon.clouds.simulated().cloud.in_region("RegionTwo").items("networks")
                  if b.get("name") == "far-net"]  # fmt: skip
        daemon.daemon.clouds.save()
        assert _checked(tmp_path) == (0, "ok")
        daemon.daemon.clouds.simulated().cloud.in_region("RegionTwo").vanish("networks", far["id"])
        daemon.daemon.clouds.save()
        assert _checked(tmp_path) == (1, "missing")
    finally:
        daemon.close()

    again = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")  # a region once saved is served
    try:
        again.follow()
        deadline = time.monotonic() + 30.0
        while "far-net" not in _names(again, "RegionTwo") and time.monotonic() < deadline:
            again.daemon.gitops.converge()
            time.sleep(0.05)
        assert (_names(again, "RegionOne"), _names(again, "RegionTwo")) == (["near-net"], ["far-net"])
    finally:
        again.close()
