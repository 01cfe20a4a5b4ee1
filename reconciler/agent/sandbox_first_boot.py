"""What cloud-init does on a server's root before its scripts run: the machine's identity.

Run inside the sandbox's namespaces, on the server's tree before it becomes the root (`python -I
-S sandbox_first_boot.py TREE SPEC BOOTED`, SPEC a JSON file `sandbox_machine` writes; standard
library only), whenever SPEC differs from BOOTED, the copy of the spec last applied (the launcher
sets the UTS namespace's host name itself, every time). A machine already running is given a spec
that changed on stdin (`python -I -S sandbox_first_boot.py / -`, TREE its root, no BOOTED: the
host keeps that copy, `resident_machine`). As cloud-init's `set_hostname` and
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

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

FIRST_UID = 1000
DEFAULT_GROUPS = ("adm", "sudo")
LOCKED = {"shadow": 1, "gshadow": 1}  # the field holding the password, by file


def replace(path: Path, text: str, mode: int, owner: tuple[int, int] = (0, 0)) -> None:
    """Write `path` anew (a new file renamed over the old: the image's copy stays below)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    beside = path.with_name(f".{path.name}.new")
    beside.write_text(text, encoding="utf-8")
    os.chown(beside, *owner)
    beside.chmod(mode)
    beside.rename(path)


def lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
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


def add_default_user(tree: Path, user: str, keys: list[str]) -> None:
    etc = tree / "etc"
    passwd, group = lines(etc / "passwd"), lines(etc / "group")
    shadow = locked(lines(etc / "shadow"), LOCKED["shadow"])
    gshadow = locked(lines(etc / "gshadow"), LOCKED["gshadow"])
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
    replace(etc / "passwd", "\n".join(passwd) + "\n", 0o644)
    replace(etc / "group", "\n".join(group) + "\n", 0o644)
    replace(etc / "shadow", "\n".join(shadow) + "\n", 0o640, (0, shadow_gid))
    replace(etc / "gshadow", "\n".join(gshadow) + "\n", 0o640, (0, shadow_gid))
    home = tree / "home" / user
    (home / ".ssh").mkdir(parents=True, exist_ok=True)
    replace(home / ".ssh" / "authorized_keys", "".join(f"{key.strip()}\n" for key in keys), 0o600, (uid, gid))
    for path, mode in ((home / ".ssh", 0o700), (home, 0o755)):
        os.chown(path, uid, gid)
        path.chmod(mode)
    sudoers = f"# Created by cloud-init: the default user\n{user} ALL=(ALL) NOPASSWD:ALL\n"
    replace(etc / "sudoers.d" / "90-cloud-init-users", sudoers, 0o440)


def remove_host_keys(tree: Path) -> None:
    """Remove the image's host keys from the server's root (its own are made by `sandbox_sshd`)."""
    ssh = tree / "etc" / "ssh"
    for key in ssh.glob("ssh_host_*") if ssh.is_dir() else ():
        key.unlink()
    (tree / "run" / "sshd").mkdir(parents=True, exist_ok=True)


def set_identity(tree: Path, spec: dict[str, Any]) -> None:
    name = str(spec["hostname"])
    replace(tree / "etc" / "hostname", f"{name}\n", 0o644)
    hosts = ["127.0.0.1 localhost", f"127.0.1.1 {name}", "::1 localhost ip6-localhost ip6-loopback"]
    hosts += [f"{address} {peer}" for address, peer in spec.get("hosts") or ()]
    replace(tree / "etc" / "hosts", "\n".join(hosts) + "\n", 0o644)


def first_boot(tree: Path, spec: dict[str, Any]) -> None:
    marker = tree / "var" / "lib" / "cloud" / "instance" / "boot-finished"
    if marker.exists():
        return
    add_default_user(tree, str(spec["default_user"]), list(spec.get("authorized_keys") or ()))
    remove_host_keys(tree)
    marker.parent.mkdir(parents=True, exist_ok=True)
    marker.write_text("done\n", encoding="utf-8")


def main(arguments: list[str]) -> int:
    tree, spec_path, booted = Path(arguments[0]), arguments[1], arguments[2:]
    try:
        text = sys.stdin.read() if spec_path == "-" else Path(spec_path).read_text(encoding="utf-8")
        spec = json.loads(text)
        set_identity(tree, spec)
        first_boot(tree, spec)
        if booted:
            shutil.copyfile(spec_path, booted[0])
    except (OSError, ValueError, KeyError) as error:
        print(f"sandbox: first boot: {error}", file=sys.stderr)
        return 125
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
