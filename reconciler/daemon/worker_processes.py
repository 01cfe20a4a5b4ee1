"""`--workers N`: N worker processes on one host, sharing the database and the shards.

The process started by systemd is worker 0, the leader: it fetches a remote, writes notes to git,
and talks to systemd. Workers 1..N-1 are children running `reconciler run --follower`: they read
the same repository (a remote's cache directory, which the leader fetches, counts as local for
them and is watched like one) and converge the stacks on the shards their leases give them. On
stop the leader sends SIGTERM to each child and waits for them up to the shutdown deadline.
"""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass

LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class FollowerCommand:
    """How to start follower `index`: the repository path it reads and the flags it shares."""

    repo: str
    database: str
    state_dir: str
    extra: Sequence[str] = ()

    def argv(self, index: int) -> list[str]:
        return [
            sys.executable,
            "-m",
            "reconciler.cli.main",
            "run",
            "--follower",
            "--repo",
            self.repo,
            "--database",
            self.database,
            "--state-dir",
            self.state_dir,
            "--listen",
            "127.0.0.1:0",
            "--worker-name",
            f"follower-{index}",
            *self.extra,
        ]


class FollowerProcesses:
    """The leader's children."""

    def __init__(self, command: FollowerCommand, count: int) -> None:
        self.command = command
        self.count = count
        self.children: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        for index in range(1, self.count + 1):
            child = subprocess.Popen(self.command.argv(index))
            LOG.info("started worker %d (pid %d)", index, child.pid)
            self.children.append(child)

    def revive(self) -> list[int]:
        """Start again every child that exited (a crash); the indexes of the ones restarted."""
        revived = []
        for index, child in enumerate(self.children, start=1):
            code = child.poll()
            if code is not None:
                LOG.warning(
                    "worker %d (pid %d) exited with status %d; starting it again", index, child.pid, code
                )
                self.children[index - 1] = subprocess.Popen(self.command.argv(index))
                revived.append(index)
        return revived

    def stop(self, deadline: float) -> list[int | None]:
        """SIGTERM every child, wait up to `deadline` seconds in all, SIGKILL the ones left; exit codes."""
        for child in self.children:
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
        codes: list[int | None] = []
        for child in self.children:
            try:
                codes.append(child.wait(timeout=deadline))
            except subprocess.TimeoutExpired:
                LOG.warning("worker pid %d did not stop within %.0f s; killing it", child.pid, deadline)
                child.kill()
                codes.append(child.wait())
        return codes
