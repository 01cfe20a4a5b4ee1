"""`--database URL`: the state database a command reads and writes, the same for every command.

Also read from RECONCILER_DATABASE_URL (or RECONCILER_DATABASE); without either, the database the
service uses: the `database` of its settings file (RECONCILER_CONFIG, else
/etc/reconciler/reconciler.toml when it exists), else the SQLite file in its state directory
(`state_dir` of that file, else RECONCILER_STATE_DIR, else the user's state directory), the same
choice `reconciler run` makes.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click
import platformdirs

from reconciler.daemon.settings import DaemonSettings, load_settings

F = TypeVar("F", bound=Callable[..., Any])

DATABASE_ENV = ("RECONCILER_DATABASE_URL", "RECONCILER_DATABASE")
CONFIG_VARIABLE = "RECONCILER_CONFIG"
STATE_DIR_VARIABLE = "RECONCILER_STATE_DIR"
DATABASE_HELP = (
    "SQLAlchemy URL of the state database: sqlite:///path, postgresql+psycopg://user@host/db, "
    "postgresql+psycopg:///db?host=/var/run/postgresql (plain postgresql:// means psycopg 3). "
    "Default: the service's (its settings file's database, else state.sqlite in its state directory)."
)


def _service_settings(environ: Mapping[str, str]) -> DaemonSettings:
    """The service's settings file: `RECONCILER_CONFIG`, else /etc/reconciler/reconciler.toml if present."""
    given = environ.get(CONFIG_VARIABLE)
    return load_settings(Path(given) if given else None)


def state_directory(environ: Mapping[str, str] = os.environ) -> Path:
    """The directory the service keeps its state in, as `reconciler run` chooses it: `state_dir` of
    the settings file, else `RECONCILER_STATE_DIR` (the unit's StateDirectory), else the user's."""
    settings = _service_settings(environ)
    chosen = (
        settings.state_dir or environ.get(STATE_DIR_VARIABLE) or platformdirs.user_state_dir("reconciler")
    )
    return Path(chosen)


def default_database_url(environ: Mapping[str, str] = os.environ) -> str:
    """The service's database: `database` of its settings file, else the SQLite file in its state
    directory (so `reconciler outputs` on a service host reads what the service wrote)."""
    settings = _service_settings(environ)
    if settings.database:
        return settings.database
    directory = state_directory(environ)
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'state.sqlite'}"


def _or_default(_context: click.Context, _parameter: click.Parameter, value: str | None) -> str:
    return value or default_database_url()


def database_option() -> Callable[[F], F]:
    """The `--database` option; the command receives the URL to use, never None."""
    return click.option(
        "--database", "database", envvar=list(DATABASE_ENV), callback=_or_default, help=DATABASE_HELP
    )
