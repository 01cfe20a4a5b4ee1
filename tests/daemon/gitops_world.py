"""A daemon on a real git repository, SQLite and the simulated cloud, driven pass by pass.

Scenario tests assemble the same daemon `reconciler run` does (port 0, a temporary state
directory) and run its passes directly instead of through the scheduler, so each step of a
scenario is explicit: follow the branch, converge, publish the notes.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import git

from reconciler.daemon.assembly import AssembledDaemon, assemble
from reconciler.daemon.settings import DaemonSettings
from reconciler.engine.report import StackReport
from reconciler.source.note_lines import NoteLine, newest_per_stack
from reconciler.source.notes_store import NotesStore
from tests.source.git_repos import commit_files, init_repository

SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"
CLOUD_COLLECTIONS = (
    "networks",
    "subnets",
    "routers",
    "ports",
    "security_groups",
    "servers",
    "volumes",
    "keypairs",
)
SETTLE_SECONDS = 30.0  # an upper bound: the zero-latency simulated cloud settles in well under 1 s


def sample_into(repo: git.Repo) -> str:
    """Commit `samples-repo/` into the working tree of `repo`; the commit's sha."""
    shutil.copytree(SAMPLES, Path(repo.working_tree_dir or "."), dirs_exist_ok=True)
    repo.git.add(A=True)
    return repo.index.commit("Add the sample stacks").hexsha


def sample_repository(path: Path) -> tuple[git.Repo, str]:
    """A git repository holding `samples-repo/` in one commit on main."""
    repo = init_repository(path)
    return repo, sample_into(repo)


class DaemonWorld:
    """One daemon process's parts, on `repo_location` (a path or URL), with its state under `state_dir`."""

    def __init__(
        self,
        repo_location: str,
        state_dir: Path,
        worker: str = "worker-a",
        sim_latency: str = "",
        **settings_given: Any,
    ) -> None:
        settings = DaemonSettings(
            repo=repo_location,
            state_dir=str(state_dir),
            listen="127.0.0.1:0",
            sim_latency=sim_latency,
            **settings_given,
        )
        self.daemon: AssembledDaemon = assemble(settings, worker_id=worker, environ={})
        self.daemon.keeper.tick()

    def follow(self) -> object:
        return self.daemon.gitops.follow()

    def converge(self, stacks: Iterable[str], commit: str) -> dict[str, StackReport]:
        """Run engine passes until each stack settled at `commit` (or the bound passes)."""
        names = list(stacks)
        give_up = threading.Event()
        timer = threading.Timer(SETTLE_SECONDS, give_up.set)
        timer.start()
        try:
            while not give_up.is_set():
                self.daemon.gitops.converge()
                reports = {name: self.daemon.engine.report(name) for name in names}
                if all(r.commit == commit and r.settled for r in reports.values()):
                    return reports
                give_up.wait(0.005)
        finally:
            timer.cancel()
        return {name: self.daemon.engine.report(name) for name in names}

    def cloud_counts(self) -> dict[str, int]:
        """How many items each collection of the simulated cloud holds."""
        cloud = self.daemon.clouds.simulated().cloud
        return {collection: cloud.count(collection) for collection in CLOUD_COLLECTIONS}

    def publish(self) -> object:
        return self.daemon.gitops.publish()

    def close(self) -> None:
        self.daemon.stop_work(5)
        self.daemon.repository.close()


def notes_on(repo: git.Repo, commit: str, kind: str = "convergence") -> dict[str, NoteLine]:
    """The newest note line per stack on `commit`, of one kind."""
    lines = newest_per_stack(NotesStore(repo).read(commit))
    return {line.stack: line for line in lines if line.kind == kind}


def commit_change(repo: git.Repo, files: dict[str, str | None], message: str) -> str:
    return commit_files(repo, files, message)
