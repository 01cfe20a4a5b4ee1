"""`--database URL`: the state database a command reads and writes, the same for every command.

Also read from RECONCILER_DATABASE_URL (or RECONCILER_DATABASE); without either, a SQLite file in
the user's state directory, the one `reconciler run` uses by default too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import platformdirs

F = TypeVar("F", bound=Callable[..., Any])

DATABASE_ENV = ("RECONCILER_DATABASE_URL", "RECONCILER_DATABASE")
DATABASE_HELP = (
    "SQLAlchemy URL of the state database: sqlite:///path, postgresql+psycopg://user@host/db, "
    "postgresql+psycopg:///db?host=/var/run/postgresql (plain postgresql:// means psycopg 3). "
    "Default: a SQLite file in the user state directory."
)


def default_database_url() -> str:
    """A SQLite file under the user's state directory."""
    directory = Path(platformdirs.user_state_dir("reconciler"))
    directory.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{directory / 'state.sqlite'}"


def _or_default(_context: click.Context, _parameter: click.Parameter, value: str | None) -> str:
    return value or default_database_url()


def database_option() -> Callable[[F], F]:
    """The `--database` option; the command receives the URL to use, never None."""
    return click.option(
        "--database", "database", envvar=list(DATABASE_ENV), callback=_or_default, help=DATABASE_HELP
    )
