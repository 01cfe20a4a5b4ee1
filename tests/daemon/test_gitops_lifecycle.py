"""The daemon and Heat's lifecycle declared in git: `state: suspended` on a stack, and a stack abandoned
under a running daemon, which stays ABANDONED while declared until its declaration adopts it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine.abandon_data import abandon_data
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


def cloud_ids(daemon: DaemonWorld) -> dict[str, list[str]]:
    cloud = daemon.daemon.clouds.simulated().cloud
    return {
        name: sorted(item["id"] for item in cloud.list(name)) for name in ("networks", "servers", "volumes")
    }


def test_state_suspended_suspends_the_stacks_servers_and_its_note_says_suspended(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    daemon.follow()
    daemon.converge(["network", "app"], repo.head.commit.hexsha)
    config = (path / "reconciler.yaml").read_text()

    suspend = commit_files(
        repo, {"reconciler.yaml": config.replace("  app:\n", "  app:\n    state: suspended\n")}, "Suspend app"
    )
    daemon.follow()
    reports = daemon.converge(["app"], suspend)
    daemon.publish()

    assert str(reports["app"].status) == "SUSPENDED", reports["app"].failures
    servers = daemon.daemon.clouds.simulated().cloud.list("servers")
    assert servers and {server["status"] for server in servers} == {"SUSPENDED"}
    assert notes_on(repo, suspend)["app"].status == "SUSPENDED"

    resume = commit_files(repo, {"reconciler.yaml": config}, "Resume app")
    daemon.follow()
    assert str(daemon.converge(["app"], resume)["app"].status) == "CONVERGED"
    assert {server["status"] for server in daemon.daemon.clouds.simulated().cloud.list("servers")} == {
        "ACTIVE"
    }


def test_an_abandoned_stack_stays_abandoned_while_declared_until_its_declaration_adopts_it(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    store = daemon.daemon.store
    daemon.follow()
    daemon.converge(["network", "app"], repo.head.commit.hexsha)
    before = cloud_ids(daemon)
    data = abandon_data("network", store.read_stack, store.read_records)
    store.abandon("network", "abandoned by `reconciler abandon`")  # as the command does, daemon running
    daemon.daemon.keeper.tick()  # its shard was released at a new epoch: taken again, the stack dropped

    template = path / "stacks" / "network" / "template.yaml"
    edited = commit_files(
        repo, {template.relative_to(path).as_posix(): template.read_text() + "\n# edit\n"}, "Edit"
    )
    daemon.follow()
    still = daemon.converge(["network"], edited)["network"]
    daemon.publish()

    assert str(still.status) == "ABANDONED"
    assert notes_on(repo, edited)["network"].status == "ABANDONED"
    assert cloud_ids(daemon) == before  # nothing made again, nothing pruned

    config = (path / "reconciler.yaml").read_text()
    adopt = commit_files(
        repo,
        {
            "network-abandoned.json": json.dumps(data),
            "reconciler.yaml": config.replace(
                "  network:\n", "  network:\n    adopt_from: network-abandoned.json\n"
            ),
        },
        "Adopt network back",
    )
    daemon.follow()
    adopted = daemon.converge(["network"], adopt)["network"]

    assert str(adopted.status) == "CONVERGED", adopted.failures
    assert adopted.counts.created == 0
    assert cloud_ids(daemon) == before
