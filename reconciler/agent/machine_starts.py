"""The host's side of the machines' starter (`sandbox_starter`): one process, started once, that
forks each resident machine, so that a boot starts no program but the machine's own shell.

`MachineStarter.started()` starts it (from the thread the machines must not outlive: the starter
dies with that thread, and every machine with the starter); `launch` asks it for one machine and
gives back its `Keeper`, watched by a pidfd since it is the starter's child, not ours; `update`
gives a running machine its new spec and neighbours through a process the starter forks into it.
Requests are answered one at a time: the starter forks (and maps a machine's ids) in about a
millisecond, and what it forked works on its own while the next is asked for.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import BinaryIO

from reconciler.agent import sandbox_starter

STOP_TIMEOUT = 10.0


class Keeper:
    """A process the starter forked, watched by a pidfd: a machine's keeper, which ends when the
    machine's first process does (`stdout` is the first process's, where it says `ready`), or an
    update's process (`stdout` is where it answers)."""

    def __init__(self, pid: int, pidfd: int, stdout: BinaryIO) -> None:
        self.pid, self._pidfd, self.stdout = pid, pidfd, stdout

    def ended(self, timeout: float = 0.0) -> bool:
        """Whether it ended, waiting up to `timeout` s for it to."""
        readable = select.poll()
        readable.register(self._pidfd, select.POLLIN)
        return bool(readable.poll(max(0, int(timeout * 1000))))

    def kill(self) -> None:
        """Kill it: its machine's first process is killed with it, and the machine with that."""
        with contextlib.suppress(ProcessLookupError):  # ended already
            signal.pidfd_send_signal(self._pidfd, signal.SIGKILL)

    def close(self) -> None:
        os.close(self._pidfd)
        self.stdout.close()


class MachineStarter:
    """The starter process and the channel its requests go over."""

    def __init__(self, process: subprocess.Popen[bytes], channel: socket.socket) -> None:
        self._process, self._channel = process, channel
        self._lock = threading.Lock()

    @classmethod
    def started(cls) -> MachineStarter:
        """Start the starter; it dies with the thread calling this."""
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-I", "-S", sandbox_starter.__file__, str(os.getpid())],
                stdin=theirs.fileno(),
                stdout=subprocess.DEVNULL,
            )
        return cls(process, ours)

    @property
    def pid(self) -> int:
        return self._process.pid

    def alive(self) -> bool:
        return self._process.poll() is None

    def launch(self, arguments: list[str], log: BinaryIO, listeners: socket.socket) -> Keeper:
        """Start a machine booted with `sandbox_boot`'s `arguments` (its listeners handed over
        `listeners`, given to it as `sandbox_starter.LISTENERS`), its errors written to `log`."""
        readable, writable = os.pipe()
        try:
            pid, pidfd = self._ask(["boot", *arguments], [writable, log.fileno(), listeners.fileno()])
        except OSError:
            os.close(readable)
            raise
        finally:
            os.close(writable)  # the machine's is its only one: its end is the end of its stdout
        return Keeper(pid, pidfd, os.fdopen(readable, "rb"))

    def update(self, keeper: Keeper, spec: int | None, prefixes: list[str], timeout: float) -> None:
        """Give the machine of `keeper` the spec open at `spec` (when it changed) and the new
        neighbours' `prefixes` (`NETWORK/LENGTH`); OSError with the reason if it could not take
        them within `timeout` s."""
        readable, writable = os.pipe()
        try:
            try:
                pid, pidfd = self._ask(
                    ["update", str(keeper.pid), *prefixes], [writable, *([spec] if spec is not None else [])]
                )
            finally:
                os.close(writable)  # the update's is its only one: its end is the end of the answer
            updated = Keeper(pid, pidfd, os.fdopen(readable, "rb"))
        except OSError:
            os.close(readable)
            raise
        with contextlib.closing(updated):
            answer = _read_until_end(updated, timeout)
        if answer != b"done":
            raise OSError(answer.decode("utf-8", "replace") or "the machine's update ended without a word")

    def _ask(self, fields: list[str], descriptors: list[int]) -> tuple[int, int]:
        """The process id and pidfd of what the starter forked for the request."""
        with self._lock:
            request = "\0".join(fields).encode("utf-8", "surrogateescape")
            socket.send_fds(self._channel, [request], descriptors)
            reply, received, _, _ = socket.recv_fds(self._channel, 65536, 1)
        if not reply.startswith(b"ok ") or len(received) != 1:
            for descriptor in received:
                os.close(descriptor)
            raise OSError(reply[1:].decode("utf-8", "replace") if reply else "the machines' starter ended")
        return int(reply[3:]), received[0]

    def stop(self) -> None:
        """Let the starter end (closing its channel) and wait for it; killed if it lingers."""
        self._channel.close()
        try:
            self._process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def _read_until_end(process: Keeper, timeout: float) -> bytes:
    """What `process` writes to its stdout until it closes it; killed after `timeout` s."""
    deadline = time.monotonic() + timeout
    readable = select.poll()
    readable.register(process.stdout.fileno(), select.POLLIN)
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not readable.poll(int(left * 1000) + 1):
            process.kill()
            return b"the machine took no update within %d s" % timeout
        chunk = os.read(process.stdout.fileno(), 65536)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
