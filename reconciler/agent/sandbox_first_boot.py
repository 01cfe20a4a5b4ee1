"""What cloud-init does on a server's root before its scripts run: the machine's identity.

Run inside the sandbox's namespaces, on the server's tree before it becomes the root (by
`sandbox_boot`, or `python -I -S sandbox_first_boot.py TREE SPEC BOOTED`, SPEC the lines
`sandbox_machine` writes; `os` alone, since every machine's boot runs it), whenever SPEC differs
from BOOTED, the copy of the spec last applied (`sandbox_entry` sets the UTS namespace's host name
itself, every time). A machine already running is given what changed in its spec by the host
(`sandbox_starter`: these same files, from `etc_hosts`). As cloud-init's `set_hostname` and
`manage_etc_hosts` do at each boot:

- `/etc/hostname` is the server's name;
- `/etc/hosts` names this server and every server it shares a network with, at their addresses.

Once per server (`/var/lib/cloud/instance/boot-finished` marks it done), as on a first boot:

- the server's own `/etc/shadow` and `/etc/gshadow`: the image's accounts with every password
  locked, so no password hash of the host is ever in a server;
- the image's default user (`ec2-user`) with its group, a home of its own holding
  `~/.ssh/authorized_keys` (the server's key pair), and passwordless sudo
  (`/etc/sudoers.d/90-cloud-init-users`);
- no ssh host keys of the host's (`ssh_deletekeys`): they are removed from the server's root, never
  shown; each server's own are made when it is first reached over ssh (`sandbox_sshd`), since
  making them costs a third of a second of CPU and most servers of a fleet are never reached;
  `/run/sshd` for sshd.

Files are replaced (written beside, then renamed), never edited in place: the host's copy stays
as it was beneath the server's layer. Exit 0 once done, 125 otherwise (the reason on stderr).
"""

from __future__ import annotations

import os
import sys

FIRST_UID = 1000
DEFAULT_GROUPS = ("adm", "sudo")
LOCKED = {"shadow": 1, "gshadow": 1}  # the field holding the password, by file


class Spec:
    """A machine's spec as `sandbox_machine.write_spec` writes it: one `FIELD VALUE` a line."""

    def __init__(self, text: str) -> None:
        self.hostname, self.default_user = "", ""
        self.keys: list[str] = []
        self.hosts: list[tuple[str, str]] = []
        for line in text.splitlines():
            field, _, value = line.partition(" ")
            if field == "hostname":
                self.hostname = value
            elif field == "default_user":
                self.default_user = value
            elif field == "key":
                self.keys.append(value)
            elif field == "host":
                address, _, name = value.partition(" ")
                self.hosts.append((address, name))
        if not (self.hostname and self.default_user):
            raise ValueError("the spec names no host name or default user")


def replace(path: str, text: str, mode: int, owner: tuple[int, int] = (0, 0)) -> None:
    """Write `path` anew (a new file renamed over the old: the image's copy stays below)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    beside = os.path.join(os.path.dirname(path), f".{os.path.basename(path)}.new")
    with open(beside, "w", encoding="utf-8") as file:
        file.write(text)
    os.chown(beside, *owner)
    os.chmod(beside, mode)
    os.rename(beside, path)


def lines(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8") as file:
            return file.read().splitlines()
    except FileNotFoundError:
        return []


def locked(entries: list[str], field: int) -> list[str]:
    """Account lines with their password field locked (`*`)."""
    out = []
    for entry in entries:
        parts = entry.split(":")
        if len(parts) > field:
            parts[field] = "*" if parts[field] not in ("!", "*", "!*") else parts[field]
        out.append(":".join(parts))
    return out


def free_id(entries: list[str]) -> int:
    numbers = [entry.split(":")[2] for entry in entries if entry.count(":") >= 2]
    taken = {int(number) for number in numbers if number.isdigit()}
    found = FIRST_UID
    while found in taken:
        found += 1
    return found


def with_member(groups: list[str], name: str, member: str) -> list[str]:
    """Group lines (`/etc/group` or `/etc/gshadow`: members last) with `member` added to `name`."""
    out = []
    for entry in groups:
        parts = entry.split(":")
        if parts[0] == name and len(parts) == 4:
            members = [m for m in parts[3].split(",") if m]
            parts[3] = ",".join([*members, member] if member not in members else members)
        out.append(":".join(parts))
    return out


def add_default_user(tree: str, user: str, keys: list[str]) -> None:
    etc = os.path.join(tree, "etc")
    passwd, group = lines(f"{etc}/passwd"), lines(f"{etc}/group")
    shadow = locked(lines(f"{etc}/shadow"), LOCKED["shadow"])
    gshadow = locked(lines(f"{etc}/gshadow"), LOCKED["gshadow"])
    if not any(entry.split(":")[0] == user for entry in passwd):
        uid = gid = max(free_id(passwd), free_id(group))
        passwd.append(f"{user}:x:{uid}:{gid}:Cloud User:/home/{user}:/bin/bash")
        group.append(f"{user}:x:{gid}:")
        shadow.append(f"{user}:!:19000:0:99999:7:::")
        gshadow.append(f"{user}:!::")
        for extra in DEFAULT_GROUPS:
            group, gshadow = with_member(group, extra, user), with_member(gshadow, extra, user)
    entry = next(entry.split(":") for entry in passwd if entry.split(":")[0] == user)
    uid, gid = int(entry[2]), int(entry[3])
    shadow_gid = next((int(g.split(":")[2]) for g in group if g.split(":")[0] == "shadow"), 0)
    replace(f"{etc}/passwd", "\n".join(passwd) + "\n", 0o644)
    replace(f"{etc}/group", "\n".join(group) + "\n", 0o644)
    replace(f"{etc}/shadow", "\n".join(shadow) + "\n", 0o640, (0, shadow_gid))
    replace(f"{etc}/gshadow", "\n".join(gshadow) + "\n", 0o640, (0, shadow_gid))
    home = os.path.join(tree, "home", user)
    os.makedirs(f"{home}/.ssh", exist_ok=True)
    replace(f"{home}/.ssh/authorized_keys", "".join(f"{key.strip()}\n" for key in keys), 0o600, (uid, gid))
    for path, mode in ((f"{home}/.ssh", 0o700), (home, 0o755)):
        os.chown(path, uid, gid)
        os.chmod(path, mode)
    sudoers = f"# Created by cloud-init: the default user\n{user} ALL=(ALL) NOPASSWD:ALL\n"
    replace(f"{etc}/sudoers.d/90-cloud-init-users", sudoers, 0o440)


def remove_host_keys(tree: str) -> None:
    """Remove the image's host keys from the server's root (its own are made by `sandbox_sshd`)."""
    ssh = os.path.join(tree, "etc", "ssh")
    for name in os.listdir(ssh) if os.path.isdir(ssh) else ():
        if name.startswith("ssh_host_"):
            os.unlink(os.path.join(ssh, name))
    os.makedirs(os.path.join(tree, "run", "sshd"), exist_ok=True)


def etc_hosts(spec: Spec) -> str:
    """The machine's `/etc/hosts`: itself, then its neighbours."""
    hosts = ["127.0.0.1 localhost", f"127.0.1.1 {spec.hostname}", "::1 localhost ip6-localhost ip6-loopback"]
    hosts += [f"{address} {peer}" for address, peer in spec.hosts]
    return "\n".join(hosts) + "\n"


def set_identity(tree: str, spec: Spec) -> None:
    replace(f"{tree}/etc/hostname", f"{spec.hostname}\n", 0o644)
    replace(f"{tree}/etc/hosts", etc_hosts(spec), 0o644)


def first_boot(tree: str, spec: Spec) -> None:
    marker = os.path.join(tree, "var", "lib", "cloud", "instance", "boot-finished")
    if os.path.exists(marker):
        return
    add_default_user(tree, spec.default_user, spec.keys)
    remove_host_keys(tree)
    os.makedirs(os.path.dirname(marker), exist_ok=True)
    with open(marker, "w", encoding="utf-8") as file:
        file.write("done\n")


def main(arguments: list[str]) -> int:
    tree, spec_path, booted = arguments[0], arguments[1], arguments[2:]
    try:
        with open(spec_path, encoding="utf-8") as file:
            text = file.read()
        spec = Spec(text)
        set_identity(tree, spec)
        first_boot(tree, spec)
        if booted:
            with open(booted[0], "w", encoding="utf-8") as copy:
                copy.write(text)
    except (OSError, ValueError) as error:
        print(f"sandbox: first boot: {error}", file=sys.stderr)
        return 125
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
