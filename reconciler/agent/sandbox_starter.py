"""Where every resident machine of a fleet is started: one interpreter, its boot's modules loaded
once, forking a machine at each request.

Starting a program, and an interpreter above all, costs a machine's boot more than its mounts do:
a fork of an interpreter that has the boot's modules loaded costs a fraction of either. The host
(`machine_starts`) starts this once; for each machine it sends the boot's arguments
(`sandbox_boot`) with four descriptors: the machine's stdout, its log, the channel its listeners
are handed over (`sandbox_listeners`), and the machine's control channel. For each, this process
forks:

- the machine's keeper, which asks to be killed with this process, enters a new user namespace
  (its ids mapped as `sandbox_users` says: here, where the host's root may map many, or by itself,
  its own id to root), then new mount, network, UTS and PID namespaces, and forks
- the machine's first process, which asks to be killed with the keeper (so a machine never
  outlives this process, which never outlives the thread of the host that started it), makes its
  mounts private, does the boot (`sandbox_boot.main`, its listeners given as descriptor 3), and
  becomes the shell that says `ready` and reaps whatever its scripts leave, as a VM's init does.

The keeper waits for the first process and ends with its status. The host is answered with a pidfd
of the keeper (`os.pidfd_open`: Linux 5.3 and later), so it can watch a process it did not start;
the machine's first process is the keeper's only child but while an update runs. An error before
the boot goes to the log and the keeper's status is 125, as the boot's own errors do.

Meanwhile the keeper gives its machine what changed in its spec, at each request on the control
channel: it is in the machine's namespaces already, and its root is the machine's since the boot
made the tree the root. It forks a process that writes `/etc/hosts` and `/etc/hostname` anew
from the spec and sets the host name when it differs (`sandbox_first_boot`), makes the new
neighbours' prefixes local (`sandbox_loopback`), answers `done` or `!` and the reason on the
channel, and ends; the keeper's own pages stay as the starter's fork left them. Each machine's
keeper serves its own, so a fleet's machines take their updates side by side.

The keeper also starts the machine's scripts (`Scripts`), at each `run` on the control channel:
it spawns the command (`posix_spawn`, no copy of its pages) in a session of its own (its own
process group's and session's leader, as a script started outside a machine is), with an empty
signal mask and the signals the interpreter ignores at their defaults, and answers on the run's
own channel: `started`, then `ended` and the wait status. A `kill` read there, or the channel's
close, kills the script's process group while it is not reaped.

Run by path with the standard library only (`python -I -S sandbox_starter.py HOST_PID`), its
requests on descriptor 0, a Unix socket of sequenced packets: the boot's arguments separated by
NUL, the four descriptors with them; answered with `ok PID` and the keeper's pidfd, or with `!`
and the reason it could not fork. An update on the control channel: `update` and the new
neighbours' prefixes (`NETWORK/LENGTH`), separated by NUL, with the spec's descriptor when the
spec changed. A script's start: `run`, with four descriptors: a file holding its directory, the
length of its command, the command and its environment's `NAME=VALUE` entries, separated by NUL
(`run_payload`); its stdout; its stderr; the run's channel, a Unix socket of sequenced packets.
"""

from __future__ import annotations

import array
import contextlib
import gc
import os
import select
import signal
import socket
import sys
from typing import NoReturn

if __name__ == "__main__":  # run by path; imported (for its path, its functions), it changes nothing
    gc.disable()  # the forks would copy the pages a collection touches; this process makes few cycles
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from reconciler.agent import sandbox_boot, sandbox_first_boot, sandbox_loopback, sandbox_root, sandbox_users
from reconciler.agent.sandbox_libc import LIBC, UnsignedLong

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
LISTENERS = 3  # the channel's descriptor in the machine's first process
BOOT_DESCRIPTORS = 4  # the machine's stdout, log, listeners' channel and control channel
STATUS = 125  # the keeper's status when it could not start the machine, as the launcher's was
REQUEST_DESCRIPTORS = 4  # at most, with a request on the control channel (a script's start)
RUN_DESCRIPTORS = 4  # a script's payload, stdout, stderr and channel
# What the interpreter ignores and a script started by it must not (as `subprocess` restores them)
DEFAULT_SIGNALS = (signal.SIGPIPE, signal.SIGXFSZ)
# The machine's first process once booted: as the launcher's shell was, it says it is ready, lets go
# of the host's descriptors, and reaps what is left running until the machine is killed.
INIT = """cd / && echo ready && exec </dev/null >/dev/null 2>&1 || exit 125
while :; do sleep 2147483647 & wait; done
"""


def die_with_parent(parent: int) -> None:
    """Be killed when `parent` ends (or at once, if it already did)."""
    LIBC.call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(STATUS)


def map_own_ids() -> None:
    """This process's own ids, and only them, as the new user namespace's root."""
    uid, gid = os.getuid(), os.getgid()
    LIBC.call("unshare", sandbox_users.CLONE_NEWUSER)
    for name, text in (("setgroups", "deny"), ("uid_map", f"0 {uid} 1"), ("gid_map", f"0 {gid} 1")):
        with open(f"/proc/self/{name}", "w", encoding="ascii") as file:
            file.write(text)


def enter_mapped(unshared: int, mapped: int) -> None:
    """A new user namespace whose ids this process's parent maps, as it says over the pipes."""
    os.setgroups([])
    LIBC.call("unshare", sandbox_users.CLONE_NEWUSER)
    os.write(unshared, b"1")
    if os.read(mapped, 1) != b"1":
        raise OSError("the machine's user ids could not be mapped")
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    os.setgroups([])


def first_process(arguments: list[str], stdout: int, log: int, listeners: int) -> int:
    """The machine's first process: its boot, then its init (no return unless the boot failed)."""
    null = os.open(os.devnull, os.O_RDONLY)
    for descriptor, number in ((null, 0), (stdout, 1), (log, 2), (listeners, LISTENERS)):
        os.dup2(descriptor, number)
    os.closerange(LISTENERS + 1, os.sysconf("SC_OPEN_MAX"))
    LIBC.call("mount", b"none", b"/", None, UnsignedLong(MS_REC | MS_PRIVATE), None)
    status = sandbox_boot.main(arguments)
    sys.stderr.flush()
    if status != 0:
        return status
    os.closerange(LISTENERS, LISTENERS + 1)  # closed already once its listeners were handed over
    os.execv("/bin/sh", ["sh", "-c", INIT])


def keeper(arguments: list[str], descriptors: list[int], pipes: tuple[int, int] | None) -> int:
    """The machine's keeper: its namespaces (its ids mapped by the starter over `pipes`, when
    given), its first process forked and waited for, its updates served meanwhile; the first
    process's status."""
    stdout, log, listeners, control = descriptors
    if pipes is not None:
        enter_mapped(*pipes)
    else:
        map_own_ids()
    LIBC.call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL)  # new credentials may have cleared it
    LIBC.call("unshare", CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWUTS | CLONE_NEWPID)
    child = os.fork()
    if child == 0:
        LIBC.call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL)  # killed with the keeper
        os._exit(first_process(arguments, stdout, log, listeners))
    for descriptor in (stdout, log, listeners):
        os.close(descriptor)
    serve_updates(child, socket.socket(fileno=control))
    _, status = os.waitpid(child, 0)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else STATUS


def serve_updates(child: int, control: socket.socket) -> None:
    """Serve the host's updates and scripts until the first process `child` ends (or the host
    closes the control channel: the machine is being stopped)."""
    ended = os.pidfd_open(child)
    waiting = select.poll()
    waiting.register(ended, select.POLLIN)
    waiting.register(control, select.POLLIN)
    scripts = Scripts(waiting)
    requests = control.fileno()
    while True:
        # one event at a time: one handled may close a descriptor another's number is reused by
        descriptor, _ = waiting.poll()[0]
        if descriptor == ended:
            return  # the machine ends, every script in it with it
        if descriptor != requests:
            scripts.ready(descriptor)
            continue
        request, descriptors = received(control, REQUEST_DESCRIPTORS)
        if not request:
            waiting.unregister(control)
        elif request == b"run":
            scripts.start(descriptors)
        else:
            update(request, descriptors, control)


def update(request: bytes, descriptors: list[int], control: socket.socket) -> None:
    """An update, done by a process forked for it and waited for."""
    try:
        forked = os.fork()
    except OSError as error:  # the machine stays; the host is told why it took no update
        control.send(f"!{error}".encode("utf-8", "replace"))
        forked = 0
    else:
        if forked == 0:
            updating(request, descriptors, control)
    for descriptor in descriptors:
        os.close(descriptor)
    if forked:
        os.waitpid(forked, 0)


class Scripts:
    """The scripts the host has this keeper start in its machine, each with its own channel to the
    host: the start's answer and the script's status go on it, and a `kill` read on it (or its
    close: the host gave the run up) kills the script's process group."""

    def __init__(self, waiting: select.poll) -> None:
        self._waiting = waiting
        self._ending: dict[int, tuple[int, socket.socket]] = {}  # by pidfd: its process, its channel
        self._asking: dict[int, int] = {}  # by channel: its process

    def start(self, descriptors: list[int]) -> None:
        """Start the script a request's descriptors describe: its payload (`run_payload`), its
        stdout and stderr, its channel."""
        if len(descriptors) != RUN_DESCRIPTORS:
            for descriptor in descriptors:
                os.close(descriptor)
            return  # its channel, if any, closes: the host reads that it did not start
        payload, stdout, stderr, reply = descriptors
        channel = socket.socket(fileno=reply)
        try:
            with open(payload, "rb") as file:
                cwd, argv, environment = run_payload(file.read())
            pid = spawn(cwd, argv, environment, stdout, stderr)
            try:
                ended = os.pidfd_open(pid)
            except OSError:
                os.killpg(pid, signal.SIGKILL)  # a script nobody could wait for is no script
                os.waitpid(pid, 0)
                raise
        except (OSError, ValueError) as error:
            with contextlib.suppress(OSError):
                channel.send(refusal(error))
            channel.close()
            return
        finally:
            os.close(stdout)
            os.close(stderr)
        self._ending[ended] = (pid, channel)
        self._asking[channel.fileno()] = pid
        self._waiting.register(ended, select.POLLIN)
        self._waiting.register(channel, select.POLLIN)
        with contextlib.suppress(OSError):
            channel.send(b"started")

    def ready(self, descriptor: int) -> None:
        if descriptor in self._ending:
            pid, channel = self._ending.pop(descriptor)
            self._waiting.unregister(descriptor)
            os.close(descriptor)
            _, status = os.waitpid(pid, 0)
            if self._asking.pop(channel.fileno(), None) is not None:
                self._waiting.unregister(channel)
            with contextlib.suppress(OSError):
                channel.send(f"ended {status}".encode("ascii"))
            channel.close()
        elif descriptor in self._asking:  # a kill asked for, or the host gone: the same
            pid = self._asking.pop(descriptor)
            self._waiting.unregister(descriptor)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)  # not reaped yet: the group is still its


def received(channel: socket.socket, most: int) -> tuple[bytes, list[int]]:
    """A message of `channel` and the descriptors with it (at most `most`), closed on exec: none is
    for what a machine executes (its first process and its scripts get copies of their own).
    `socket.recv_fds` here passes no flags to `recvmsg`, so they would be inherited."""
    descriptors = array.array("i")
    message, ancillary, _, _ = channel.recvmsg(
        1 << 20, socket.CMSG_LEN(most * descriptors.itemsize), socket.MSG_CMSG_CLOEXEC
    )
    for level, kind, data in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            descriptors.frombytes(data[: len(data) - len(data) % descriptors.itemsize])
    return message, list(descriptors)


def refusal(error: OSError | ValueError) -> bytes:
    """A start's refusal: `!` and the error's number, reason and file, separated by NUL. (Kept in
    no local: this process collects no cycles, and an exception held holds its frames.)"""
    if isinstance(error, OSError):
        said = [str(error.errno or 0), error.strerror or str(error), str(error.filename or "")]
    else:
        said = ["0", str(error), ""]
    return ("!" + "\0".join(said)).encode("utf-8", "replace")


def run_payload(payload: bytes) -> tuple[str, list[str], dict[str, str]]:
    """The directory, command and environment of a script's start, as `ResidentMachine.start`
    writes them: NUL-separated, the command's length before it, `NAME=VALUE` entries after it."""
    fields = payload.decode("utf-8", "surrogateescape").split("\0")
    length = int(fields[1])
    argv, entries = fields[2 : 2 + length], fields[2 + length :]
    if not argv:
        raise ValueError("no command to run")
    return fields[0], argv, dict(entry.partition("=")[::2] for entry in entries)


def spawn(cwd: str, argv: list[str], environment: dict[str, str], stdout: int, stderr: int) -> int:
    """Start `argv` in `cwd` (this process's own directory for the time of the start) in a session
    of its own, its input empty, its signals as a new program's; its process id."""
    os.chdir(cwd)
    try:
        return os.posix_spawn(
            argv[0],
            argv,
            environment,
            file_actions=[
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_DUP2, stdout, 1),
                (os.POSIX_SPAWN_DUP2, stderr, 2),
            ],
            setsid=True,
            setsigmask=(),
            setsigdef=DEFAULT_SIGNALS,
        )
    finally:
        os.chdir("/")


def updating(request: bytes, descriptors: list[int], control: socket.socket) -> NoReturn:
    """In the process the keeper forked for an update: the spec read from `descriptors` (when
    given) applied, the prefixes of `request` made local, the answer sent on `control`; it never
    returns to the keeper's loop, whatever it meets."""
    answer = b"!the update failed"
    try:
        LIBC.call("prctl", PR_SET_PDEATHSIG, signal.SIGKILL)
        os.chdir("/")  # the machine's root; the keeper's directory may be the host's, detached
        os.umask(0o022)
        if descriptors:
            with open(descriptors[0], encoding="utf-8", errors="replace") as file:
                spec = sandbox_first_boot.Spec(file.read())
            sandbox_first_boot.replace("/etc/hosts", sandbox_first_boot.etc_hosts(spec), 0o644)
            if socket.gethostname() != spec.hostname:
                sandbox_first_boot.replace("/etc/hostname", f"{spec.hostname}\n", 0o644)
                socket.sethostname(spec.hostname)
        prefixes = [prefix.split("/") for prefix in request.decode("ascii").split("\0")[1:]]
        sandbox_loopback.routes_added([(network, int(length)) for network, length in prefixes])
        answer = b"done"
    except (OSError, ValueError) as error:
        answer = f"!{error}".encode("utf-8", "replace")
    finally:
        with contextlib.suppress(OSError):
            control.send(answer)
        os._exit(0)


def forked(
    arguments: list[str], descriptors: list[int], channel: socket.socket, ours: list[int], theirs: list[int]
) -> NoReturn:
    """In the keeper, just forked by the starter: its life, then its end with the machine's."""
    status = STATUS
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        starter = os.getppid()
        channel.close()
        for descriptor in ours:  # else a read here would never see the starter's end close
            os.close(descriptor)
        die_with_parent(starter)
        os.dup2(descriptors[1], 2)
        status = keeper(arguments, descriptors, (theirs[0], theirs[1]) if theirs else None)
    except OSError as error:
        print(f"sandbox: {error}", file=sys.stderr, flush=True)
    finally:
        os._exit(status)


def map_keeper(pid: int, unshared: int, mapped: int) -> None:
    """Map the ids of keeper `pid` once it says it entered its user namespace, and say so."""
    try:
        if os.read(unshared, 1) == b"1":
            try:
                sandbox_users.map_users(pid)
                os.write(mapped, b"1")
            except OSError:
                pass  # the keeper reads no "1", says so and ends
    finally:
        os.close(unshared)
        os.close(mapped)


def start(arguments: list[str], descriptors: list[int], channel: socket.socket) -> tuple[int, int]:
    """Fork the machine booted with `arguments`; the keeper's process id and pidfd."""
    pipes = (os.pipe(), os.pipe()) if sandbox_users.users_switchable() else None
    ours = [pipes[0][0], pipes[1][1]] if pipes is not None else []
    theirs = [pipes[0][1], pipes[1][0]] if pipes is not None else []
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD})  # not reaped before its pidfd is open
    try:
        pid = os.fork()
        if pid == 0:
            forked(arguments, descriptors, channel, ours, theirs)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            os.kill(pid, signal.SIGKILL)  # a machine the host cannot watch is no machine
            raise
    except OSError:
        for descriptor in ours:
            os.close(descriptor)
        raise
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGCHLD})
        for descriptor in [*descriptors, *theirs]:
            os.close(descriptor)
    if ours:
        map_keeper(pid, *ours)
    return pid, pidfd


def reap(*_: object) -> None:
    """Reap every keeper that ended (the host watches them by their pidfds)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def serve(channel: socket.socket, view: str | None = None) -> None:
    """Answer requests until the host closes its end; each machine's tree laid on `view`, if any."""
    given = ["--view", view] if view is not None else []
    while True:
        request, descriptors = received(channel, BOOT_DESCRIPTORS)
        if not request:
            return
        if len(descriptors) != BOOT_DESCRIPTORS:
            for descriptor in descriptors:
                os.close(descriptor)
            channel.send(f"!the request came without its {BOOT_DESCRIPTORS} descriptors".encode("ascii"))
            continue
        try:
            arguments = request.decode("utf-8", "surrogateescape").split("\0")
            pid, pidfd = start([*arguments[:2], *given, *arguments[2:]], descriptors, channel)
        except OSError as error:
            channel.send(f"!{error}".encode("utf-8", "replace"))
            continue
        try:
            socket.send_fds(channel, [f"ok {pid}".encode("ascii")], [pidfd])
        finally:
            os.close(pidfd)


def main(arguments: list[str]) -> int:
    die_with_parent(int(arguments[0]))
    signal.signal(signal.SIGCHLD, reap)
    view = sandbox_root.host_view()  # one overlay per machine, not one per directory at the top
    gc.freeze()  # what the forks share stays shared
    try:
        serve(socket.socket(fileno=0), None if view is None else str(view.path))
    finally:
        if view is not None:
            sandbox_root.drop_view(view)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
