"""Where the keys sealing hidden values at rest come from (see `state.sealing`).

In order: the `state_key_file` setting; else systemd's credential `state-key` (a unit's
`LoadCredential=state-key:/etc/reconciler/state.key` puts it in `$CREDENTIALS_DIRECTORY`, readable by
the service alone); else, for the embedded single-host case, a key file made on first use (mode
0600) beside the SQLite database, or in the state directory for any other database. Daemons on
several hosts sharing one PostgreSQL need the same key file on every host: configure it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from sqlalchemy.engine import make_url

from state.sealing import Sealer
from state.sealing_keys import key_file_keys

CREDENTIAL_NAME = "state-key"
KEY_FILE = "state.key"


def default_key_file(database_url: str, state_dir: Path) -> Path:
    """The key file made on first use: beside a SQLite database file, else in the state directory."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database)
        return database.with_name(f"{database.name}.key")
    return state_dir / KEY_FILE


def state_sealer(
    database_url: str,
    state_dir: Path,
    *,
    key_file: str | None = None,
    environ: Mapping[str, str] = os.environ,
) -> Sealer:
    """The sealer for this database, from the first key source that is configured (module doc)."""
    if key_file:
        return Sealer(key_file_keys(Path(key_file), create=False))
    credentials = environ.get("CREDENTIALS_DIRECTORY")
    if credentials and (Path(credentials) / CREDENTIAL_NAME).is_file():
        return Sealer(key_file_keys(Path(credentials) / CREDENTIAL_NAME, create=False))
    return Sealer(key_file_keys(default_key_file(database_url, state_dir), create=True))
