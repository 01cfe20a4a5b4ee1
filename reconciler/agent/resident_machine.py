"""A server's sandbox as a VM is: booted once, its scripts entered into it, until it is stopped.

Building a sandbox (namespaces, the server's writable root of some seventy mounts, first boot, its
ways out) costs far more than the script it runs, and tearing it down costs the kernel more again
(the overlays' sync, the network namespace's RCU grace periods). A resident machine pays that once:

- `boot` has the machines' starter (`machine_starts`, `sandbox_starter`) fork the machine: the
  namespaces, the root with every run of the server written straight through
  (`sandbox.boot_arguments`), first boot and host name, the machine's addresses on its loopback,
  and its listeners (the agent API's address; its neighbours' port, on every address: one
  listener however many neighbours it has) handed to the host over a socket pair
  (`sandbox_listeners`) instead of a relay process in every machine. A connection to the
  neighbours' port at an address that is no neighbour's (its own loopback) is closed by the host,
  where a listener per neighbour would have left it refused. A shell then stays as the PID
  namespace's first process, reaping what scripts leave running, as a VM's init does;
- `start` starts a script in the machine: its keeper, in the machine's namespaces and root
  already, spawns it (`sandbox_starter`) and says on a channel of the run's own when it ended; no
  program is started to enter the machine, and the host forks nothing. Whatever the script leaves
  running stays in the machine, as on a VM;
- `prefix` is what is put before a command to enter the machine (an ssh session's): `nsenter` into
  its user, mount, UTS, network and PID namespaces, its root and a directory;
- `update` gives a running machine what changed in its spec (`sandbox_machine`: /etc/hosts, the
  host name, new neighbours' addresses made local by routes, as at boot) with no reboot: its
  keeper, in its namespaces and root already, forks a process that does it (`sandbox_starter`),
  asked over the machine's control channel; no program is started for it;
- `stop` kills its first process: the kernel then kills every process of the machine and frees
  its namespaces, mounts and listeners. The machine also dies with its starter, which dies when
  the thread that started it ends (`resident_machines` starts it from one thread that lives as
  long as the machines do) or its process dies.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import signal
import socket
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from reconciler.agent import sandbox_listeners, sandbox_loopback, sandbox_users
from reconciler.agent.agent_gateway import AgentGateway
from reconciler.agent.machine_starts import Keeper, MachineStarter
from reconciler.agent.output_tails import file_tail
from reconciler.agent.sandbox import boot_arguments, root_of
from reconciler.agent.sandbox_machine import MachineWay

BOOT_TIMEOUT = 120.0
STOP_TIMEOUT = 30.0
LOG_NAME = "machine.log"  # in the server's root directory, hidden from the machine itself
NAMESPACES = ("--user", "--mount", "--uts", "--net")
Listened = list[tuple[str, socket.socket]]  # (ADDRESS:PORT, its listener)


class MachineFailed(Exception):
    """The machine could not boot or take a change; the reason is the message."""


@dataclass
class ResidentMachine:
    """One running machine: its keeper, its first process, what it was given."""

    runs_dir: Path
    keeper: Keeper  # the process the machine's first process dies with (`sandbox_starter`)
    init: int  # the machine's first process, as the host numbers it
    spec: bytes | None  # the spec applied
    peers: frozenset[str]  # the neighbours listened for
    control: socket.socket  # where its keeper is asked for updates
    stopped: bool = field(default=False)

    @classmethod
    def boot(
        cls, runs_dir: Path, gateway: AgentGateway | None, way: MachineWay | None, starter: MachineStarter
    ) -> tuple[ResidentMachine, Listened]:
        """Boot the machine whose runs are under `runs_dir` (its root beside them, `root_of`),
        forked by `starter`; the machine and the listeners it handed over."""
        root = root_of(runs_dir)
        root.mkdir(parents=True, exist_ok=True)
        runs_dir.mkdir(parents=True, exist_ok=True)
        spec = _read(way.spec) if way is not None else None
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        control, keepers = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        arguments = boot_arguments(str(runs_dir), str(root), gateway, way)
        keeper: Keeper | None = None
        with ours, theirs, keepers, (root / LOG_NAME).open("wb") as log:
            try:
                keeper = starter.launch(arguments, log, theirs, keepers)
                theirs.close()
                keepers.close()
                listened = receive(ours)
                ready = keeper.stdout.readline()
            except OSError as error:
                ready = b""
                listened = []
                reason = str(error)
            else:
                reason = ""
        init = _first_child(keeper.pid) if keeper is not None and ready.strip() == b"ready" else None
        if keeper is None or init is None:
            if keeper is not None:
                keeper.kill()  # its first process is killed with it
                _end(keeper)
            for _, listener in listened:
                listener.close()
            control.close()
            said = file_tail(root / LOG_NAME)[-500:].strip()  # what the boot said, else what we saw
            raise MachineFailed(said or reason or "the machine did not boot")
        keeper.stdout.close()  # it says nothing more once ready
        peers = frozenset(way.peers) if way is not None and way.peer_socket is not None else frozenset()
        return cls(runs_dir, keeper, init, spec, peers, control), listened

    def alive(self) -> bool:
        return not self.stopped and not self.keeper.ended()

    def prefix(self, run_dir: str, *, pid: bool = True) -> Sequence[str]:
        """What is put before a command to run it in the machine, in `run_dir`."""
        # not root: its user namespace forbids setgroups, and its root is this process's own user
        credentials = () if sandbox_users.users_switchable() else ("--preserve-credentials",)
        return [
            shutil.which("nsenter") or "nsenter",
            *("--target", str(self.init), *NAMESPACES, *(("--pid",) if pid else ())),
            *("--root", f"--wdns={run_dir}", *credentials, "--"),
        ]

    def start(
        self, argv: Sequence[str], cwd: str, environment: Mapping[str, str], stdout: int, stderr: int
    ) -> EnteredScript:
        """Start `argv` in the machine, in `cwd`, with `environment` alone and the descriptors
        `stdout` and `stderr`, in a session of its own; OSError if it could not start (ENOEXEC
        for a file the kernel cannot execute, as `exec` says)."""
        fields = [cwd, str(len(argv)), *argv, *(f"{name}={value}" for name, value in environment.items())]
        if any("\0" in field for field in fields) or any("=" in name or not name for name in environment):
            raise OSError(
                errno.EINVAL, "a command or environment the kernel cannot pass (a NUL, or a name with =)"
            )
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        payload = -1
        try:
            with theirs:
                payload = os.memfd_create("script", os.MFD_CLOEXEC)
                os.write(payload, "\0".join(fields).encode("utf-8", "surrogateescape"))
                os.lseek(payload, 0, os.SEEK_SET)
                socket.send_fds(self.control, [b"run"], [payload, stdout, stderr, theirs.fileno()])
            ours.settimeout(BOOT_TIMEOUT)
            answer = ours.recv(65536)
        except OSError as error:
            ours.close()
            raise OSError(f"the machine started no script: {error.strerror or error}") from error
        finally:
            if payload >= 0:
                os.close(payload)
        if answer != b"started":  # `!` and the error's number, reason and file, or the keeper gone
            ours.close()
            number, reason, filename = [*answer[1:].decode("utf-8", "replace").split("\0"), "", "", ""][:3]
            code = int(number) if number.isdigit() else 0
            if not code:
                raise OSError(reason or "the machine ended")
            raise OSError(code, reason, *([filename] if filename else []))
        return EnteredScript(ours)

    def update(self, way: MachineWay | None) -> None:
        """Give the machine `way`'s spec and neighbours, if they changed since it last took them."""
        if way is None:
            return
        new_peers = sorted(set(way.peers) - self.peers) if way.peer_socket is not None else []
        try:
            spec_file = open(way.spec, "rb")  # noqa: SIM115  # its descriptor goes to the keeper
        except OSError:
            spec_file = None
        with spec_file or contextlib.nullcontext():
            spec = spec_file.read() if spec_file is not None else None
            if spec == self.spec and not new_peers:
                return
            given = []
            if spec_file is not None and spec != self.spec:
                spec_file.seek(0)  # the keeper reads the very spec compared here, whatever replaced it
                given.append(spec_file.fileno())
            prefixes = [f"{network}/{length}" for network, length in sandbox_loopback.prefixes(new_peers)]
            request = "\0".join(["update", *prefixes]).encode("ascii")
            try:
                self.control.settimeout(BOOT_TIMEOUT)
                socket.send_fds(self.control, [request], given)
                answer = self.control.recv(65536)
            except ConnectionError:
                answer = b""  # its keeper ended, and its channel with it
            except OSError as error:
                self.kill()  # a late answer would be read as the next update's: booted anew instead
                raise MachineFailed(f"the machine took no update: {error}") from error
        if answer != b"done":
            said = answer[1:].decode("utf-8", "replace") if answer else "the machine ended"
            raise MachineFailed(f"the machine took no update: {said}")
        self.spec, self.peers = spec, self.peers | set(new_peers)
        with contextlib.suppress(OSError):
            (root_of(self.runs_dir) / "booted.spec").write_bytes(spec or b"")

    def kill(self) -> None:
        """Kill the machine's first process: the kernel then kills every other of its processes."""
        self.stopped = True
        if not self.keeper.ended():  # else its first process is gone, and its number free
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.init, signal.SIGKILL)

    def stop(self) -> None:
        """Kill the machine and wait until it is gone, its namespaces and mounts with it."""
        self.kill()
        _end(self.keeper)
        self.control.close()


class EnteredScript:
    """A script the machine's keeper started: its status comes on `channel` as it ends."""

    def __init__(self, channel: socket.socket) -> None:
        self._channel = channel
        self._status: int | None = None

    def wait(self, timeout: float | None = None) -> int:
        """Its status as `subprocess` gives it (minus the signal that killed it); TimeoutExpired
        when it has not ended within `timeout` s. A machine gone ends its scripts: SIGKILL's."""
        if self._status is not None:
            return self._status
        self._channel.settimeout(None if timeout is None else max(timeout, 0.001))  # 0 would not block
        try:
            answer = self._channel.recv(64)
        except TimeoutError as error:
            raise subprocess.TimeoutExpired("the script", timeout or 0.0) from error
        except OSError:
            answer = b""
        self._channel.close()
        word, _, status = answer.decode("ascii", "replace").partition(" ")
        ended = word == "ended" and status.lstrip("-").isdigit()
        self._status = os.waitstatus_to_exitcode(int(status)) if ended else -signal.SIGKILL
        return self._status

    def kill(self) -> None:
        """Kill it and every process of its group, and wait until it ended."""
        if self._status is None:
            with contextlib.suppress(OSError):
                self._channel.send(b"kill")
            try:
                self.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:  # its keeper is stuck: closing the channel asks again
                self._channel.close()
                self._status = -signal.SIGKILL


def receive(channel: socket.socket) -> Listened:
    """The listeners a machine hands over (`sandbox_listeners`), until its last message."""
    channel.settimeout(BOOT_TIMEOUT)
    listened: Listened = []
    while True:
        text, descriptors, _, _ = socket.recv_fds(channel, 65536, sandbox_listeners.BATCH)
        received = [socket.socket(fileno=descriptor) for descriptor in descriptors]
        if text == sandbox_listeners.END or not text:
            for listener in received:
                listener.close()
            if not text:
                for _, listener in listened:
                    listener.close()
                raise OSError("the machine ended before handing its listeners over")
            return listened
        listened += zip(text.decode("ascii").split(), received, strict=True)


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


def _first_child(process: int) -> int | None:
    """The machine's first process: the only child of its keeper (found among all processes where
    the kernel lists no children)."""
    try:
        children = Path(f"/proc/{process}/task/{process}/children").read_text(encoding="ascii").split()
    except OSError:
        children = [str(pid) for pid in _children_by_parent(process)]
    return int(children[0]) if len(children) == 1 else None


def _children_by_parent(parent: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            fields = (entry / "stat").read_text(encoding="ascii", errors="replace").rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if entry.name.isdigit() and int(fields[1]) == parent:
            found.append(int(entry.name))
    return found


def _end(keeper: Keeper) -> None:
    """Wait for the keeper, killing it if it outlives its machine's first process for long."""
    if not keeper.ended(STOP_TIMEOUT):
        keeper.kill()
        keeper.ended(STOP_TIMEOUT)
    keeper.close()
