"""Where the simulated cloud's agents run scripts: a directory of their own, a time limit (both
given by the script hook), no network but the agent API, and nothing else of the host's file
system to write to.

The script runs in new user, mount, PID and network namespaces (`unshare`, no privilege needed).
The network namespace has only loopback. Without a gateway it stays down: the script reaches
nothing. With one (`AgentGateway`), loopback is up, holds the address VMs are given for the agent
API, and `sandbox_relay` listens there on the API's port, carrying each connection to the
gateway's Unix socket and so to the agent API: a script's `curl` to a wait handle's URL or a
deployment's signal URL works, and every other address is unreachable (no route), the host's own
loopback services included. The PID namespace ends with the script, taking the relay and anything
the script left running with it.

In the mount namespace every writable file system of the host (but /proc and /sys) is remounted
read-only, except the run's own directory, which is `HOME` and `TMPDIR` too. A script writing
elsewhere (`/hello`, `/etc/...`) fails as on a read-only host, and leaves the host as it was.
Unix sockets on the host's file system stay reachable as their permissions allow: the namespaces
isolate IP networking, not file-system sockets.

Where the kernel or the container refuses user namespaces, scripts run unconfined, and
`isolation_available()` says so (logged once by whoever builds the hooks).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.agent import sandbox_relay
from reconciler.agent.agent_gateway import AgentGateway
from reconciler.agent.hooks import Hook, HookChooser, script_hook, stand_in_hook

# setpriv: the sandbox is killed with the thread that started it (a daemon killed, or stopped
# without waiting, leaves no script running on); unshare's --kill-child then takes its namespace.
UNSHARE = (
    "setpriv",
    "--pdeathsig",
    "KILL",
    "unshare",
    "--user",
    "--map-root-user",
    "--mount",
    "--net",
    "--pid",
    "--kill-child",
    "--",
)
# $1: the run's directory; $2: how many mount points follow; then they; then either `relay` with
# the address, port, socket, Python and relay script, or `closed`; then the command. The shell is
# the PID namespace's first process: when it exits, whatever else runs there is killed.
LAUNCHER = """
run=$1; count=$2; shift 2
mount --bind "$run" "$run" || exit 125
while [ "$count" -gt 0 ]; do
  mount -o remount,bind,ro "$1" 2>/dev/null
  count=$((count - 1)); shift
done
if [ "$1" = relay ]; then
  ip link set lo up || exit 125
  case "$2" in 127.*) ;; *) ip address add "$2/32" dev lo || exit 125 ;; esac
  "$5" -I -S "$6" "$2" "$3" "$4" </dev/null >/dev/null 2>&1 || exit 125
  shift 6
else
  shift
fi
cd "$run" && "$@"
"""
KERNEL_FILE_SYSTEMS = ("/proc", "/sys")


@functools.cache
def isolation_available() -> bool:
    """Whether this host lets an unprivileged process run a command in the sandbox."""
    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
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


def relay_available() -> bool:
    """Whether a sandbox can be given its way to the agent API (iproute2 sets its loopback up)."""
    return shutil.which("ip") is not None


def _way_out(gateway: AgentGateway | None) -> list[str]:
    if gateway is None or not relay_available():
        return ["closed"]
    host, port = gateway.address.reached_at
    return ["relay", host, str(port), gateway.socket_path, sys.executable, sandbox_relay.__file__]


def sandbox_prefix(run_dir: str, gateway: AgentGateway | None = None) -> Sequence[str]:
    """The command put before a script so that it runs in the sandbox, its directory `run_dir`,
    reaching the agent API through `gateway` when one is given and nothing at all otherwise."""
    if not isolation_available():
        return ()
    mounts = writable_mounts()
    return [
        *UNSHARE,
        *("/bin/sh", "-c", LAUNCHER, "sandbox", run_dir, str(len(mounts)), *mounts),
        *_way_out(gateway),
    ]


def sandboxed_script_hook(
    deployment: Mapping[str, Any], workdir: Path, time_limit: float, gateway: AgentGateway | None = None
) -> dict[str, Any]:
    """heat-config's script hook, the script run in the sandbox (reaching the agent API through
    `gateway` when given)."""
    return script_hook(
        deployment, workdir, time_limit, sandbox=lambda run_dir: sandbox_prefix(run_dir, gateway)
    )


def sandboxed_hooks(
    others: Mapping[str, Hook] | None = None, gateway: AgentGateway | None = None
) -> Mapping[str, Hook]:
    """The hooks the simulated cloud's agents use: scripts in the sandbox, reaching the agent API
    through `gateway`; `others` by group (puppet, ansible, ... when someone plugs a hook in); every
    other group to the stand-in."""

    def script(deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]:
        return sandboxed_script_hook(deployment, workdir, time_limit, gateway)

    return {"script": script, **(others or {})}


def chooser(hooks: Mapping[str, Hook]) -> HookChooser:
    """The hook for a config group: the one named, else the stand-in that says nothing applied it."""

    def hook_for(group: str) -> Hook:
        return hooks.get(group, stand_in_hook)

    return hook_for
