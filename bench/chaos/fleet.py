"""The daemons of a run: `reconciler run` processes on one database, one remote and one cloud.

Each daemon has a slot (`d0`, `d1`, ...) and, per start, an incarnation; its worker id is
`chaos-d1-2` (slot 1, third start), so the lease table says which process holds what. A daemon
that exits on its own is started again, as systemd's `Restart=always` would, and counted.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from bench.chaos.lifetime import bound_to_us

STOP_TIMEOUT = 20.0
FETCH_INTERVAL = "1"  # seconds between fetches of the remote: a pushed commit is seen at once


@dataclass
class Daemon:
    slot: str
    incarnation: int
    process: subprocess.Popen[bytes]
    log_path: Path
    stopped: bool = False

    @property
    def worker_id(self) -> str:
        return f"chaos-{self.slot}-{self.incarnation}"


@dataclass
class Fleet:
    """Every daemon started in a run, the live one per slot, and what happened to them."""

    directory: Path
    remote_url: str
    database_url: str
    clouds_yaml: Path
    live: dict[str, Daemon] = field(default_factory=dict)
    every: list[Daemon] = field(default_factory=list)
    unexpected_exits: list[str] = field(default_factory=list)

    def start(self, slot: str) -> Daemon:
        incarnation = sum(1 for daemon in self.every if daemon.slot == slot)
        log_path = self.directory / f"daemon-{slot}-{incarnation}.log"
        state_dir = self.directory / f"state-{slot}"  # the repository cache survives a restart
        command = [
            sys.executable, "-m", "reconciler.cli.main", "run",
            "--repo", self.remote_url, "--database", self.database_url,
            "--listen", "127.0.0.1:0", "--state-dir", str(state_dir),
            "--fetch-interval", FETCH_INTERVAL, "--worker-name", f"chaos-{slot}-{incarnation}",
        ]  # fmt: skip
        environ = {**os.environ, "OS_CLIENT_CONFIG_FILE": str(self.clouds_yaml)}
        environ.pop("NOTIFY_SOCKET", None)
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                bound_to_us(command), stdout=log, stderr=subprocess.STDOUT, env=environ
            )
        daemon = Daemon(slot, incarnation, process, log_path)
        self.live[slot] = daemon
        self.every.append(daemon)
        return daemon

    def kill(self, slot: str) -> Daemon:
        """SIGKILL: no chance to release anything."""
        daemon = self.live.pop(slot)
        daemon.process.send_signal(signal.SIGKILL)
        daemon.process.wait()
        return daemon

    def pause(self, slot: str) -> Daemon:
        daemon = self.live[slot]
        daemon.process.send_signal(signal.SIGSTOP)
        daemon.stopped = True
        return daemon

    def resume(self, slot: str) -> Daemon:
        daemon = self.live[slot]
        daemon.process.send_signal(signal.SIGCONT)
        daemon.stopped = False
        return daemon

    def revive_exited(self) -> list[str]:
        """Start again every daemon that exited by itself; the slots restarted."""
        exited = [slot for slot, daemon in self.live.items() if daemon.process.poll() is not None]
        for slot in exited:
            self.unexpected_exits.append(
                f"{self.live[slot].worker_id} exit {self.live[slot].process.returncode}"
            )
            self.start(slot)
        return exited

    def stop_all(self) -> None:
        """Every process this fleet started ends: SIGCONT, SIGTERM, then SIGKILL after a deadline."""
        for daemon in self.every:
            if daemon.process.poll() is None:
                daemon.process.send_signal(signal.SIGCONT)
                daemon.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_TIMEOUT
        for daemon in self.every:
            try:
                daemon.process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                daemon.process.kill()
                daemon.process.wait()
        self.live.clear()

    def log_lines(self, needle: str) -> int:
        """How many lines of every daemon's log contain `needle`."""
        total = 0
        for daemon in self.every:
            with daemon.log_path.open(errors="replace") as log:
                total += sum(1 for line in log if needle in line)
        return total
