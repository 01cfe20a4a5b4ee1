"""End to end: `reconciler apply` converges samples-repo through the OpenStack provider.

Given samples-repo committed to a fresh git repository with `cloud:` naming a clouds.yaml entry for
the simulated cloud served over HTTP; when `reconciler apply` runs, then both stacks converge and
the cloud holds the servers and volumes; when it runs again on the same commit, nothing is written.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from providers.simulated.settings import CloudSettings
from reconciler.cli.demo import make_sample_repository
from reconciler.cli.main import cli
from tests.openstack.conftest import CLOUD_NAME, StartCloud

WRITES = ("create", "update", "delete")


def samples_on(cloud_name: str, directory: Path) -> Path:
    """samples-repo committed as `make demo` commits it, then pointed at `cloud_name`."""
    repo = make_sample_repository(directory)
    config = directory / "reconciler.yaml"
    lines = config.read_text(encoding="utf-8").splitlines()
    config.write_text(
        "\n".join(f"  cloud: {cloud_name}" if line.startswith("  cloud:") else line for line in lines) + "\n",
        encoding="utf-8",
    )
    repo.index.add(["reconciler.yaml"])
    repo.index.commit(f"Converge on {cloud_name}")
    return directory


def test_samples_repo_converges_through_the_openstack_provider(
    start_cloud: StartCloud, tmp_path: Path
) -> None:
    sim = start_cloud(settings=CloudSettings(time_to_active=0.0))
    repo = samples_on(CLOUD_NAME, tmp_path / "repo")
    arguments = ["apply", "--repo", str(repo), "--database", f"sqlite:///{tmp_path / 'state.sqlite'}"]

    first = CliRunner().invoke(cli, [*arguments, "--timeout", "600"])

    assert first.exit_code == 0, first.output
    assert "network: CONVERGED" in first.output and "app: CONVERGED" in first.output
    assert sim.cloud.count("servers") == 2 and sim.cloud.count("volumes") == 2
    writes = sum(sim.cloud.calls[kind] for kind in WRITES)

    second = CliRunner().invoke(cli, [*arguments, "--timeout", "600"])

    assert second.exit_code == 0, second.output
    assert sum(sim.cloud.calls[kind] for kind in WRITES) == writes
