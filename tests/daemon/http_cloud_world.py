"""A daemon on a real git repository whose stacks name a simulated cloud served over HTTP.

The cloud is reached through a clouds.yaml by the real openstacksdk, as a user's cloud would be
(`tests/openstack/conftest.py` serves it); the daemon is the one `reconciler run` assembles,
driven pass by pass. Helpers wait, in real time, until what the scenario expects is true.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path

import git
import pytest

from providers.simulated.settings import CloudSettings
from reconciler.engine.report import StackReport
from tests.daemon.gitops_world import DaemonWorld
from tests.openstack.conftest import CLOUD_NAME, CloudUnderTest, StartCloud
from tests.source.git_repos import commit_files, init_repository

SETTLE_SECONDS = 30.0


def repository_config(stacks: Mapping[str, str], *, prune: bool = True, extra: str = "") -> str:
    """`reconciler.yaml` naming the served cloud; `stacks`: name -> template path; `extra`: more
    lines under the last stack (its parameters, say)."""
    lines = ["defaults:", f"  cloud: {CLOUD_NAME}", "  observe_interval: 1", f"  prune: {str(prune).lower()}"]
    lines.append("stacks:")
    for name, template in stacks.items():
        lines += [f"  {name}:", f"    template: {template}"]
    return "\n".join(lines) + "\n" + extra


class HttpCloudWorld:
    """A git repository, a cloud over HTTP, and daemons started on them (one at a time)."""

    def __init__(self, root: Path, sim: CloudUnderTest) -> None:
        self.root = root
        self.sim = sim
        self.repo: git.Repo = init_repository(root / "repo")
        self.state_dir = root / "state"
        self.daemon: DaemonWorld | None = None

    @property
    def database_url(self) -> str:
        return f"sqlite:///{self.state_dir / 'state.sqlite'}"

    def commit(self, files: Mapping[str, str | None], message: str = "change") -> str:
        return commit_files(self.repo, files, message)

    def empty_commit(self, message: str = "nothing") -> str:
        return self.repo.index.commit(message).hexsha

    def start_daemon(self) -> DaemonWorld:
        self.daemon = DaemonWorld(str(self.root / "repo"), self.state_dir)
        return self.daemon

    def stop_daemon(self) -> None:
        if self.daemon is not None:
            self.daemon.close()
            self.daemon = None

    def running(self) -> DaemonWorld:
        assert self.daemon is not None, "no daemon started"
        return self.daemon

    def follow(self) -> None:
        self.running().follow()

    def report(self, stack: str) -> StackReport:
        return self.running().daemon.engine.report(stack)

    def converge_until(self, done: Callable[[], bool], seconds: float = SETTLE_SECONDS) -> bool:
        """Converge passes until `done()` (True) or `seconds` of real time (False)."""
        gitops = self.running().daemon.gitops
        give_up = threading.Event()
        timer = threading.Timer(seconds, give_up.set)
        timer.start()
        try:
            while not give_up.is_set():
                gitops.converge()
                if done():
                    return True
                give_up.wait(0.005)
            return done()
        finally:
            timer.cancel()

    def live(self, collection: str) -> list[dict[str, object]]:
        self.sim.cloud.count(collection)
        return [dict(item) for item in self.sim.cloud.world.inventory(collection)]

    def close(self) -> None:
        self.stop_daemon()


@contextmanager
def http_cloud_world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpCloudWorld]:
    """A world for one test (a fixture's body): the cloud and every daemon stop at the end."""
    with ExitStack() as stack:
        start = StartCloud(stack, tmp_path, monkeypatch)
        world = HttpCloudWorld(tmp_path, start(settings=CloudSettings(time_to_active=0.0)))
        try:
            yield world
        finally:
            world.close()
