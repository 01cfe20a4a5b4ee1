"""Where the simulated cloud's agents run scripts: a temporary directory of their own, a time
limit (both given by the script hook), and no network at all.

The network is cut with a new network namespace of an unprivileged user namespace
(`unshare --net --map-root-user`): the script sees only a loopback device that is down, so it
reaches nothing, the daemon's agent API included; the agent around it, not the script, polls and
signals. Where the kernel or the container refuses user namespaces, scripts run with the host's
network, and `network_cut()` says so (logged once by whoever builds the hooks).
"""

from __future__ import annotations

import functools
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.agent.hooks import Hook, HookChooser, script_hook, stand_in_hook

NO_NETWORK = ("unshare", "--net", "--map-root-user", "--")


@functools.cache
def network_cut() -> bool:
    """Whether this host lets an unprivileged process run a command without network."""
    if shutil.which(NO_NETWORK[0]) is None:
        return False
    try:
        done = subprocess.run([*NO_NETWORK, "true"], capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def sandboxed_script_hook(deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]:
    """heat-config's script hook, the script cut off from every network."""
    prefix: Sequence[str] = NO_NETWORK if network_cut() else ()
    return script_hook(deployment, workdir, time_limit, prefix=prefix)


def sandboxed_hooks(others: Mapping[str, Hook] | None = None) -> Mapping[str, Hook]:
    """The hooks the simulated cloud's agents use: scripts in the sandbox; `others` by group
    (puppet, ansible, ... when someone plugs a hook in); every other group to the stand-in."""
    return {"script": sandboxed_script_hook, **(others or {})}


def chooser(hooks: Mapping[str, Hook]) -> HookChooser:
    """The hook for a config group: the one named, else the stand-in that says nothing applied it."""

    def hook_for(group: str) -> Hook:
        return hooks.get(group, stand_in_hook)

    return hook_for
