"""Where the simulated cloud's agents run scripts: a directory of their own, a time limit (both
given by the script hook), no network but the agent API, and a root file system of its server's
own, over the host's, which it never changes.

The script runs in new user, mount, PID, UTS and network namespaces (`unshare`, no privilege needed).
The network namespace has only loopback. Without a gateway it stays down: the script reaches
nothing. With one (`AgentGateway`), loopback is up, holds the address VMs are given for the agent
API, and `sandbox_relay` listens there on the API's port, carrying each connection to the
gateway's Unix socket and so to the agent API: a script's `curl` to a wait handle's URL or a
deployment's signal URL works, and every other address is unreachable (no route), the host's own
loopback services included. The PID namespace ends with the script, taking the relay and anything
the script left running with it.

In the mount namespace the script sees the host's file system through a writable layer of its
server's own (`sandbox_root`): it may write anywhere (`/hello`, `/etc/...`) as on a VM, a later
script on the same server finds what it wrote, and the host's files stay as they were. The run's
own directory is written straight through, and is `HOME` and `TMPDIR` too. The layers live in
the server's state directory (`root_of` its runs' directory) and go with it (`remove_tree`).
A Unix socket of the host, seen through the overlay, refuses connections (an overlay's inode is
not the socket's); the gateway's socket is bound in as it is. A socket under a directory the
overlay could not take (bound read-only instead) stays reachable as its permissions allow.

The UTS namespace is the sandbox's own too. Which users exist is `sandbox_users`' concern (many
when the daemon runs as root, root alone otherwise). A sandbox started as a machine
(`sandbox_machine`) is booted as cloud-init boots a VM (`sandbox_first_boot`: host name, default
user, /etc/hosts, ssh host keys), sees nothing of the fleet's state but its own run, and, given
the peer gateway's socket, finds its neighbours at their addresses (`sandbox_relay --named`).

A resident machine (`resident_machine`) is the same sandbox built once for a server and given no
command: the machines' starter (`sandbox_starter`) makes its namespaces and runs the same boot
(`boot_arguments`), its ways out listened for by the host (`sandbox_listeners`) rather than by
relays inside; the fleet enters its scripts into it. `sandbox_prefix` builds a sandbox for one
command, which ends with it.

Where the kernel or the container refuses user namespaces, scripts run unconfined, and
`isolation_available()` says so (logged once by whoever builds the hooks).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.agent import sandbox_boot, sandbox_relay, sandbox_users
from reconciler.agent.agent_gateway import AgentGateway
from reconciler.agent.hooks import Hook, HookChooser, script_hook, stand_in_hook
from reconciler.agent.process_starts import run_apart
from reconciler.agent.sandbox_machine import SSH_PORT, MachineWay
from reconciler.agent.sandbox_starter import LISTENERS


def unshare_command() -> list[str]:
    """The command that makes the sandbox's namespaces (users: `sandbox_users`) and runs the rest."""
    # setpriv: the sandbox is killed with the thread that started it (a daemon killed, or stopped
    # without waiting, leaves no script running on); unshare's --kill-child then takes its namespace.
    namespaces = ("--mount", "--net", "--pid", "--uts", "--kill-child", "--")
    return ["setpriv", "--pdeathsig", "KILL", *sandbox_users.namespace_command(), *namespaces]


# $1: the run's directory; $2: the server's root directory; $3: Python; $4: the boot script
# (`sandbox_boot`); optionally `machine` with the server's spec (`sandbox_machine`: booted again
# only when it changed), its host name and a directory to hide (the fleet's state; none: '');
# optionally `peers` with the peer gateway's socket, the port, the neighbours' addresses
# (comma-separated) and the peers' relay; then either `relay` with the address, port, socket and
# relay script, or `closed`; then the command. The boot script does every step up to the tree
# becoming the root and loopback holding its addresses. The shell is the PID namespace's first
# process: when it exits, whatever else runs there is killed.
LAUNCHER = """
run=$1; root=$2; python=$3; booter=$4; shift 4
spec=; hidden=; if [ "$1" = machine ]; then spec=$2; name=$3; hidden=$4; shift 4; fi
peers=; if [ "$1" = peers ]; then peers=$2; peer_port=$3; addresses=$4; peer_relay=$5; shift 5; fi
if [ "$1" = relay ]; then address=$2; port=$3; socket=$4; relay=$5; shift 5; else socket=; shift; fi
networked=; if [ -n "$socket$peers" ]; then networked=1; fi
"$python" -I -S "$booter" "$root" "$run" ${socket:+--bind} ${socket:+"$socket"} \\
  ${peers:+--bind} ${peers:+"$peers"} \\
  ${spec:+--boot} ${spec:+"$spec"} ${spec:+"$root/booted.spec"} ${spec:+--name} ${spec:+"$name"} \\
  ${hidden:+--hide} ${hidden:+"$hidden"} ${networked:+--loopback "$addresses" "$address"} || exit 125
if [ -n "$peers" ]; then
  "$python" -I -S "$peer_relay" --named "$peers" "$peer_port" $(echo "$addresses" | tr , ' ') \\
    </dev/null >/dev/null 2>&1 || exit 125
fi
if [ -n "$socket" ]; then
  "$python" -I -S "$relay" "$address" "$port" "$socket" </dev/null >/dev/null 2>&1 || exit 125
fi
cd "$run" && "$@"
"""


@functools.cache
def isolation_available() -> bool:
    """Whether this host lets an unprivileged process run a command in the sandbox."""
    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
        return False
    try:
        done = run_apart([*unshare_command(), "true"], timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def relay_available() -> bool:
    """Whether a sandbox can be given its way to the agent API (iproute2 sets its loopback up)."""
    return shutil.which("ip") is not None


def _way_out(gateway: AgentGateway | None) -> list[str]:
    if gateway is None or not relay_available():
        return ["closed"]
    host, port = gateway.address.reached_at
    return ["relay", host, str(port), gateway.socket_path, sandbox_relay.__file__]


def sandbox_prefix(
    run_dir: str,
    root_dir: str,
    gateway: AgentGateway | None = None,
    machine: MachineWay | None = None,
) -> Sequence[str]:
    """The command put before a script so that it runs in the sandbox, its directory `run_dir`,
    its writable root kept in `root_dir` (the server's, with its disks when `sandbox_disks`
    prepared them there), reaching the agent API through `gateway` when one is given and nothing
    at all otherwise; booted as `machine` says (its identity, its neighbours) when one is given."""
    if not isolation_available():
        return ()
    return [
        *unshare_command(),
        *("/bin/sh", "-c", LAUNCHER, "sandbox", run_dir, root_dir, sys.executable, sandbox_boot.__file__),
        *(machine.launcher_arguments() if machine is not None else ()),
        *_way_out(gateway),
    ]


def boot_arguments(
    runs_dir: str, root_dir: str, gateway: AgentGateway | None = None, machine: MachineWay | None = None
) -> list[str]:
    """`sandbox_boot`'s arguments for a resident machine (`sandbox_starter`): the sandbox of
    `sandbox_prefix`, every run under `runs_dir` written straight through, its listeners (the
    agent API's address, its neighbours' port on every address) handed to the host."""
    arguments = [root_dir, runs_dir]
    endpoints, address, networked = [], "", False
    if gateway is not None and relay_available():
        host, port = gateway.address.reached_at
        endpoints.append(f"{host}:{port}")
        address, networked = host, True
    if machine is not None:
        arguments += ["--boot", str(machine.spec), os.path.join(root_dir, "booted.spec")]
        arguments += ["--name", machine.hostname]
        if machine.hidden is not None:
            arguments += ["--hide", str(machine.hidden.absolute())]
        if machine.peer_socket is not None:  # neighbours to come are listened for too
            endpoints.append(f"0.0.0.0:{SSH_PORT}")
            networked = True
    if networked:
        peers = ",".join(machine.peers) if machine is not None and machine.peer_socket is not None else ""
        arguments += ["--loopback", peers, address]
    return [*arguments, "--listen", str(LISTENERS), *endpoints]


def root_of(workdir: Path) -> Path:
    """Where the sandbox keeps a server's root: beside its runs' directory, in the server's own."""
    return workdir.parent / "root"


def sandboxed_script_hook(
    deployment: Mapping[str, Any],
    workdir: Path,
    time_limit: float,
    gateway: AgentGateway | None = None,
    machine: MachineWay | None = None,
) -> dict[str, Any]:
    """heat-config's script hook, the script run in the sandbox of the server whose runs' directory
    is `workdir` (reaching the agent API through `gateway` when given, booted as `machine`)."""
    root = str(root_of(workdir.absolute()))

    def prefix(run_dir: str) -> Sequence[str]:
        return sandbox_prefix(os.path.abspath(run_dir), root, gateway, machine)

    return script_hook(deployment, workdir, time_limit, sandbox=prefix)


def remove_tree(directory: Path) -> None:
    """Remove a server's state directory, its sandbox's layers too: overlayfs leaves its work
    directories without permissions, and a script may have left some of its own."""

    def opened(function: Any, path: str, _: Any) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            if os.path.isdir(path) and not os.path.islink(path):
                os.chmod(path, 0o700)
            function(path)

    shutil.rmtree(directory, onerror=opened)


def sandboxed_hooks(
    others: Mapping[str, Hook] | None = None,
    gateway: AgentGateway | None = None,
    machine: Callable[[], MachineWay | None] = lambda: None,
) -> Mapping[str, Hook]:
    """The hooks the simulated cloud's agents use: scripts in the sandbox, reaching the agent API
    through `gateway`, booted as `machine()` says at each run; `others` by group (puppet, ansible,
    ... when someone plugs a hook in); every other group to the stand-in."""

    def script(deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]:
        return sandboxed_script_hook(deployment, workdir, time_limit, gateway, machine())

    return {"script": script, **(others or {})}


def chooser(hooks: Mapping[str, Hook]) -> HookChooser:
    """The hook for a config group: the one named, else the stand-in that says nothing applied it."""

    def hook_for(group: str) -> Hook:
        return hooks.get(group, stand_in_hook)

    return hook_for
