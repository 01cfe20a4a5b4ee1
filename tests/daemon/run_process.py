"""`reconciler run` as a real child process, with NOTIFY_SOCKET bound to a datagram socket we read."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

STOP_SECONDS = 60.0  # an upper bound for an orderly stop; the daemon usually needs well under 2 s


class DaemonProcess:
    """One `reconciler run` child: its systemd messages, its log, and a way to SIGTERM it."""

    def __init__(self, args: Sequence[str], workdir: Path, name: str) -> None:
        self.notify_path = workdir / f"{name}.notify"
        self.log_path = workdir / f"{name}.log"
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(str(self.notify_path))
        environ = {**os.environ, "NOTIFY_SOCKET": str(self.notify_path)}
        environ.pop("WATCHDOG_USEC", None)
        self.log = self.log_path.open("wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "reconciler.cli.main", "run", *args],
            env=environ,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )

    def message(self, timeout: float) -> str:
        """The next sd_notify datagram (TimeoutError when none comes in time)."""
        self.notify.settimeout(timeout)
        return self.notify.recv(4096).decode()

    def wait_for(self, prefix: str, timeout: float) -> str:
        """Messages until one starts with `prefix`."""
        while True:
            message = self.message(timeout)
            if message.startswith(prefix):
                return message

    def signal(self, number: signal.Signals) -> None:
        self.process.send_signal(number)

    def terminate(self) -> int:
        """SIGTERM and the exit status."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_SECONDS)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.notify.close()
        self.log.close()

    def output(self) -> str:
        return self.log_path.read_text(errors="replace")
