"""Where the simulated cloud's agents run scripts: a directory of their own, a time limit (both
given by the script hook), no network, and nothing else of the host's file system to write to.

The script runs in new user, mount and network namespaces (`unshare`, no privilege needed): the
network namespace has only a loopback device that is down, so the script reaches nothing, the
daemon's agent API included (the agent around it, not the script, polls and signals); in the
mount namespace every writable file system of the host (but /proc and /sys) is remounted
read-only, except the run's own directory, which is `HOME` and `TMPDIR` too. A script writing
elsewhere (`/hello`, `/etc/...`) fails as on a read-only host, and leaves the host as it was.

Where the kernel or the container refuses user namespaces, scripts run unconfined, and
`isolation_available()` says so (logged once by whoever builds the hooks).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.agent.hooks import Hook, HookChooser, script_hook, stand_in_hook

UNSHARE = ("unshare", "--user", "--map-root-user", "--mount", "--net", "--")
# $1: the run's directory; $2: how many mount points follow; then they, then the command
LAUNCHER = """
run=$1; count=$2; shift 2
mount --bind "$run" "$run" || exit 125
while [ "$count" -gt 0 ]; do
  mount -o remount,bind,ro "$1" 2>/dev/null
  count=$((count - 1)); shift
done
cd "$run" && exec "$@"
"""
KERNEL_FILE_SYSTEMS = ("/proc", "/sys")


@functools.cache
def isolation_available() -> bool:
    """Whether this host lets an unprivileged process run a command in the sandbox."""
    if shutil.which(UNSHARE[0]) is None:
        return False
    try:
        done = subprocess.run([*UNSHARE, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@functools.cache
def writable_mounts() -> tuple[str, ...]:
    """The host's mount points mounted read-write, but the kernel's own (/proc, /sys); device
    files stay writable on a read-only mount, so /dev is remounted too."""
    points: list[str] = []
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
    except OSError:
        return ()
    for line in lines:
        fields = line.split()
        point, options = fields[4], fields[5].split(",")
        kernels = any(point == kept or point.startswith(kept + "/") for kept in KERNEL_FILE_SYSTEMS)
        if "rw" in options and not kernels and "\\" not in point:
            points.append(point)
    return tuple(dict.fromkeys(points))  # a file system mounted twice is remounted once


def sandbox_prefix(run_dir: str) -> Sequence[str]:
    """The command put before a script so that it runs in the sandbox, its directory `run_dir`."""
    if not isolation_available():
        return ()
    mounts = writable_mounts()
    return [*UNSHARE, "/bin/sh", "-c", LAUNCHER, "sandbox", run_dir, str(len(mounts)), *mounts]


def sandboxed_script_hook(deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]:
    """heat-config's script hook, the script run in the sandbox."""
    return script_hook(deployment, workdir, time_limit, sandbox=sandbox_prefix)


def sandboxed_hooks(others: Mapping[str, Hook] | None = None) -> Mapping[str, Hook]:
    """The hooks the simulated cloud's agents use: scripts in the sandbox; `others` by group
    (puppet, ansible, ... when someone plugs a hook in); every other group to the stand-in."""
    return {"script": sandboxed_script_hook, **(others or {})}


def chooser(hooks: Mapping[str, Hook]) -> HookChooser:
    """The hook for a config group: the one named, else the stand-in that says nothing applied it."""

    def hook_for(group: str) -> Hook:
        return hooks.get(group, stand_in_hook)

    return hook_for
