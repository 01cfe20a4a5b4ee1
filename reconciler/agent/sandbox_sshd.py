"""An ssh connection to a simulated server: OpenSSH's `sshd -i` in the server's own sandbox.

As inetd starts `sshd -i` for each connection, a connection the peer gateway routes to a server
gets an sshd of its own, run in that server's sandbox (its root, its users, its host name), the
connection as its standard input and output. The server's host keys are made in its root before
its first sshd starts (Ed25519 and ECDSA, only those missing), as cloud-init makes them at a VM's
first boot. The session's
commands run there as the user who logged in. The sandbox has no network of its own: a session
reaches what the server's scripts reach when started with no gateway, nothing. Given a way to
`enter` the server's resident machine (`resident_machine`), sshd runs there instead, beside its
scripts, as a VM's sshd does.

Where Debian's `openssh-server` is not installed, `sshd_path()` is None and connections are
refused (the fleet says so once).
"""

from __future__ import annotations

import functools
import logging
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from reconciler.agent.hooks import kill_group
from reconciler.agent.output_tails import file_tail
from reconciler.agent.sandbox import root_of, sandbox_prefix
from reconciler.agent.sandbox_machine import MachineWay

LOG = logging.getLogger(__name__)
SBIN = "/usr/sbin:/sbin"


# $1: sshd; the keys missing made in the server's own root (Ed25519 and ECDSA, as cloud-init's
# `ssh_genkeytypes` can choose: an RSA key takes seconds under load, longer than a client waits for
# the banner), then the connection served
MAKE_KEYS_THEN_SERVE = (
    "for kind in ed25519 ecdsa; do key=/etc/ssh/ssh_host_${kind}_key; "
    '[ -f "$key" ] || ssh-keygen -q -t "$kind" -N "" -f "$key" || exit 255; done; '
    'exec "$1" -i -e'
)


@functools.cache
def sshd_path() -> str | None:
    """Where OpenSSH's server is, if installed."""
    return shutil.which("sshd", path=f"{SBIN}:{os.environ.get('PATH', '')}")


def serve_ssh(
    connection: socket.socket,
    server_dir: Path,
    machine: MachineWay,
    time_limit: float,
    enter: Callable[[str], Sequence[str]] | None = None,
) -> int:
    """Serve one ssh connection with `sshd -i` in the sandbox of the server whose state directory
    is `server_dir` (or in its resident machine, by the prefix `enter` gives for a directory of its
    runs); the session's exit status (255 when sshd is missing or the session is stopped after
    `time_limit` seconds)."""
    sshd = sshd_path()
    if sshd is None:
        return 255
    sessions = server_dir / "runs" if enter is not None else server_dir / "sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    run_dir = os.path.abspath(tempfile.mkdtemp(prefix="ssh-", dir=sessions))
    log = Path(run_dir) / "sshd.log"
    runs = str(root_of(server_dir.absolute() / "runs"))
    prefix = enter(run_dir) if enter is not None else sandbox_prefix(run_dir, runs, None, machine)
    try:
        with log.open("wb") as errors:
            process = subprocess.Popen(
                [*prefix, "/bin/sh", "-c", MAKE_KEYS_THEN_SERVE, "sshd", sshd],
                cwd=run_dir,
                env={"PATH": f"{SBIN}:/usr/bin:/bin"},
                stdin=connection.fileno(),
                stdout=connection.fileno(),
                stderr=errors,
                start_new_session=True,
            )
            try:
                status = process.wait(time_limit)
            except subprocess.TimeoutExpired:
                kill_group(process)
                status = process.returncode
        # sshd -i ends with 255 also when the client disconnects as usual: its log says more
        LOG.debug("an ssh session on %s ended with %d: %s", server_dir.name, status, file_tail(log)[-500:])
        return status
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
