"""The host's side of the machines' starter (`sandbox_starter`): one process, started once, that
forks each resident machine, so that a boot starts no program but the machine's own shell.

`MachineStarter.started()` starts it (from the thread the machines must not outlive: the starter
dies with that thread, and every machine with the starter); `launch` asks it for one machine and
gives back its `Keeper`, watched by a pidfd since it is the starter's child, not ours; the
keeper serves its machine's updates on the control channel given at launch. Requests are
answered one at a time: the starter forks and maps a machine's ids in about a millisecond, and
the machine boots on its own while the next is asked for.
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
from typing import BinaryIO

from reconciler.agent import sandbox_starter

STOP_TIMEOUT = 10.0


class Keeper:
    """A machine's keeper process (`sandbox_starter`): ends when the machine's first process
    does; `stdout` is the first process's, where it says `ready`."""

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

    def launch(
        self, arguments: list[str], log: BinaryIO, listeners: socket.socket, control: socket.socket
    ) -> Keeper:
        """Start a machine booted with `sandbox_boot`'s `arguments` (its listeners handed over
        `listeners`, given to it as `sandbox_starter.LISTENERS`; its updates asked for on
        `control`), its errors written to `log`."""
        readable, writable = os.pipe()
        try:
            with self._lock:
                request = "\0".join(arguments).encode("utf-8", "surrogateescape")
                descriptors = [writable, log.fileno(), listeners.fileno(), control.fileno()]
                socket.send_fds(self._channel, [request], descriptors)
                reply, received, _, _ = socket.recv_fds(self._channel, 65536, 1)
        except OSError:
            os.close(readable)
            raise
        finally:
            os.close(writable)  # the machine's is its only one: its end is the end of its stdout
        if not reply.startswith(b"ok ") or len(received) != 1:
            os.close(readable)
            for descriptor in received:
                os.close(descriptor)
            reason = reply[1:].decode("utf-8", "replace") if reply else "the machines' starter ended"
            raise OSError(reason)
        return Keeper(int(reply[3:]), received[0], os.fdopen(readable, "rb"))

    def stop(self) -> None:
        """Let the starter end (closing its channel) and wait for it; killed if it lingers."""
        self._channel.close()
        try:
            self._process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
