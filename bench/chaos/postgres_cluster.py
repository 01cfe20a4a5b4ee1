"""A PostgreSQL cluster of the run's own: made, started, restarted and removed by the suite.

A private cluster (initdb in the run's directory) rather than the machine's shared one, so that
restarting PostgreSQL mid-run disrupts nobody else and removing the run's database is removing the
directory. It listens on a Unix socket in its data directory only (`listen_addresses = ''`): no
TCP at all. Durability is traded for speed (`fsync = off`): the chaos is in the daemons, and a
restart (`pg_ctl restart -m fast`, what `pg_ctlcluster restart` does) is a clean shutdown that
loses nothing. PostgreSQL refuses to run as root, so as root every server command runs as the
`postgres` account.
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

SERVER_ACCOUNT = "postgres"
PORT = 5432  # names the socket file only: the socket lives in this cluster's own directory
START_TIMEOUT = 60
SETTINGS = (
    "listen_addresses = ''",
    "max_connections = 300",
    "fsync = off",
    "synchronous_commit = off",
    "full_page_writes = off",
    "shared_buffers = 64MB",
)


def _binaries() -> Path:
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not versions:
        raise RuntimeError("PostgreSQL server binaries not found (run tests/ensure_postgres.sh once)")
    return versions[-1].parent


class PostgresCluster:
    """One private cluster; `url` reaches its database `chaos` as a SQLAlchemy URL."""

    def __init__(self, parent: Path) -> None:
        self.bin = _binaries()
        self.directory = Path(tempfile.mkdtemp(prefix="pg-", dir=parent))
        self.data = self.directory / "data"
        self.log = self.directory / "server.log"
        self._as_root = os.geteuid() == 0
        if self._as_root:
            account = pwd.getpwnam(SERVER_ACCOUNT)
            os.chown(self.directory, account.pw_uid, account.pw_gid)
            os.chmod(parent, 0o755)  # the server account must reach its directory

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://{SERVER_ACCOUNT}@/chaos?host={self.data}&port={PORT}"

    def _run(self, *command: str) -> None:
        prefix: Sequence[str] = ("runuser", "-u", SERVER_ACCOUNT, "--") if self._as_root else ()
        subprocess.run(
            [*prefix, *command], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )

    def create(self) -> None:
        """initdb, our settings, start, and an empty database `chaos`."""
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", SERVER_ACCOUNT, "--auth=trust")
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("\n".join((*SETTINGS, f"unix_socket_directories = '{self.data}'", f"port = {PORT}")))
            conf.write("\n")
        self.start()
        self._run(
            str(self.bin / "createdb"), "-h", str(self.data), "-p", str(PORT), "-U", SERVER_ACCOUNT, "chaos"
        )

    def _ctl(self, *action: str) -> None:
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
            "-t", str(START_TIMEOUT), *action,
        )  # fmt: skip

    def start(self) -> None:
        self._ctl("start")

    def restart(self) -> None:
        """Stop (disconnecting every client at once) and start again, as `pg_ctlcluster restart`."""
        self._ctl("restart", "-m", "fast")

    def stop(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self._ctl("stop", "-m", "immediate")

    def remove(self) -> None:
        """Stop the server and delete every file of the cluster: the run's database goes with it."""
        self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)


@contextlib.contextmanager
def private_cluster(parent: Path) -> Iterator[PostgresCluster]:
    cluster = PostgresCluster(parent)
    try:
        cluster.create()
        yield cluster
    finally:
        cluster.remove()
