"""`reconciler apply` converges a load balancer in front of three servers on the simulated cloud.

Given a repository whose stack is a network, three servers and a load balancer with a listener,
a pool, a health monitor and a member per server; when `apply` runs, then the stack converges
with every Octavia object ACTIVE; when a member is deleted by hand between runs, then the next run
makes it again; when a commit changes the pool's algorithm, then the next run updates only it.
"""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from providers.simulated.provider import SimulatedProvider
from reconciler.cli.main import cli
from reconciler.daemon.clouds import sim_cloud_path
from tests.openstack.test_load_balancer_scenario import TEMPLATE
from tests.source.git_repos import commit_files, init_repository

CONFIG = """defaults:
  cloud: sim
stacks:
  web:
    template: stacks/web/template.yaml
"""


def applied(repo: Path, database: str) -> str:
    result = CliRunner().invoke(cli, ["apply", "--repo", str(repo), "--database", database])
    assert result.exit_code == 0, result.output
    return result.output


def test_apply_converges_heals_and_updates_a_load_balancer_in_front_of_three_servers(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    commit_files(repo, {"reconciler.yaml": CONFIG, "stacks/web/template.yaml": TEMPLATE}, "load balanced web")
    database = f"sqlite:///{tmp_path / 'state.sqlite'}"

    assert "web: CONVERGED" in applied(tmp_path / "repo", database)
    cloud = SimulatedProvider.open(sim_cloud_path(database)).cloud
    members = cloud.list("members")
    assert len(members) == 3 and {member["operating_status"] for member in members} == {"ONLINE"}
    assert {lb["provisioning_status"] for lb in cloud.list("loadbalancers")} == {"ACTIVE"}

    cloud.vanish("members", members[0]["id"])
    cloud.save()
    assert "web: CONVERGED" in applied(tmp_path / "repo", database)
    cloud = SimulatedProvider.open(sim_cloud_path(database)).cloud
    assert sorted(member["address"] for member in cloud.list("members")) == sorted(
        m["address"] for m in members
    )

    changed = TEMPLATE.replace(
        "algorithm: {type: string, default: ROUND_ROBIN}", "algorithm: {type: string, default: SOURCE_IP}"
    )
    commit_files(repo, {"stacks/web/template.yaml": changed}, "sticky clients")
    output = applied(tmp_path / "repo", database)
    assert "web: CONVERGED" in output and "created 0, updated 1, replaced 0, deleted 0" in output
    cloud = SimulatedProvider.open(sim_cloud_path(database)).cloud
    assert [pool["lb_algorithm"] for pool in cloud.list("pools")] == ["SOURCE_IP"]
