"""The sandbox's users: which of its user and group ids exist, and what they are on the host.

A VM has many users: root, the image's default user (`ec2-user`), the daemons' own (`sshd`), and a
script switches between them (`su - ec2-user`). A user namespace gives the sandbox that only for
the ids it maps. How far the map reaches depends on who runs the daemon:

- as root, this module writes the maps itself (`python -I -S sandbox_users.py UID_MAP GID_MAP
  COMMAND...`, standard library only): the sandbox's root is the host's root, as it always was
  (the server's layers must be able to copy the host's root-owned files up), and every other id
  of the sandbox, 1 to 65535, is an id the host gives nobody (`SHIFTED_BASE` onwards). A file of
  the host owned by a real user of the host (uid 1000) is no one's in the sandbox: a sandbox user
  gets only what the host gives everybody, and writes only to its server's own layer;
- otherwise only the daemon's own id is mapped, to root (`unshare --map-root-user`): scripts run
  as root and one that switches user fails (`su: cannot set groups`); `users_switchable()` says
  so, and whoever builds the hooks logs it.

Only a process outside the namespace may map more than its own id. For a sandbox run once, the
root-run maps are written by a helper forked before `unshare(CLONE_NEWUSER)`; the process then
runs COMMAND in the namespace (the rest of the sandbox's `unshare`), still dying with the thread
that started it. A resident machine's are written by the machines' starter that forked it
(`sandbox_starter`, with `map_users`).
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000
PR_SET_PDEATHSIG = 1
SIGKILL = 9
SANDBOX_IDS = 65536  # root and 1..65535, as a distribution's subordinate ranges give a container
SHIFTED_BASE = 1 << 30  # far above what any distribution gives its users (uid 1000...) or systemd


def id_map() -> str:
    """The map of the root-run sandbox: its root is the host's, its other ids the host's nobody's."""
    return f"0 0 1\n1 {SHIFTED_BASE + 1} {SANDBOX_IDS - 1}\n"


def users_switchable() -> bool:
    """Whether the sandbox's scripts may switch users (the daemon runs as root)."""
    return os.geteuid() == 0


def namespace_command() -> list[str]:
    """The command that enters the sandbox's user namespace, before the rest of its `unshare`."""
    if users_switchable():
        return [sys.executable, "-I", "-S", __file__, id_map(), id_map(), "unshare"]
    return ["unshare", "--user", "--map-root-user"]


def map_users(process: int) -> None:
    """Map the ids of the user namespace `process` entered, from outside it."""
    for name in ("uid_map", "gid_map"):
        with open(f"/proc/{process}/{name}", "w", encoding="ascii") as file:
            file.write(id_map())


def _write_maps(process: int, uid_map: str, gid_map: str, ready: int, done: int) -> None:
    """In the helper: once the process entered its namespace, map its ids and say so."""
    os.read(ready, 1)
    try:
        for name, text in (("uid_map", uid_map), ("gid_map", gid_map)):
            with open(f"/proc/{process}/{name}", "w", encoding="ascii") as file:
                file.write(text)
        os.write(done, b"1")
    except OSError as error:
        print(f"sandbox: mapping users: {error}", file=sys.stderr)


def enter(uid_map: str, gid_map: str) -> bool:
    """Enter a new user namespace with these maps, as its root; whether it worked."""
    parent = os.getppid()
    ready_read, ready_write = os.pipe()
    done_read, done_write = os.pipe()
    helper = os.fork()
    if helper == 0:
        os.close(ready_write)
        os.close(done_read)
        _write_maps(os.getppid(), uid_map, gid_map, ready_read, done_write)
        os._exit(0)
    os.close(ready_read)
    os.close(done_write)
    libc = ctypes.CDLL(None, use_errno=True)
    entered = libc.unshare(CLONE_NEWUSER) == 0
    os.write(ready_write, b"1" if entered else b"0")
    mapped = os.read(done_read, 1) == b"1"
    os.waitpid(helper, 0)
    if not (entered and mapped):
        return False
    os.setresgid(0, 0, 0)
    os.setresuid(0, 0, 0)
    os.setgroups([])
    # new credentials drop the death signal setpriv gave: ask for it again, unless already orphaned
    libc.prctl(PR_SET_PDEATHSIG, SIGKILL)
    return os.getppid() == parent


def main(arguments: list[str]) -> int:
    uid_map, gid_map, command = arguments[0], arguments[1], arguments[2:]
    if not enter(uid_map, gid_map):
        print("sandbox: could not enter a user namespace", file=sys.stderr)
        return 125
    try:
        os.execvp(command[0], command)
    except OSError as error:
        print(f"sandbox: {command[0]}: {error}", file=sys.stderr)
    return 125


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
