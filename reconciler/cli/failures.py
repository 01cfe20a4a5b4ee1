"""Expected failures end the command in one line naming the problem and what to do, exit 1.

A wrong database URL, a database that refuses connections, a broken `clouds.yaml`, a cloud that
refuses the credentials or a port already taken are the operator's to fix, not the program's:
a traceback would bury the one line that matters. `reconciler --debug ...` (or
`RECONCILER_DEBUG=1`) shows the traceback instead. The error classes are looked up among the
modules already imported, so this costs `--help` nothing.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

import click

DEBUG_FLAG = "--debug"
DATABASE_HINT = "check --database or RECONCILER_DATABASE_URL"


def _database_problem(error: BaseException) -> str:
    cause = getattr(error, "orig", None) or error
    first = str(cause).strip().splitlines()[0] if str(cause).strip() else type(cause).__name__
    return f"cannot use the state database: {first}; {DATABASE_HINT}"


# (module, class name) -> the one line shown for it
EXPECTED: dict[tuple[str, str], Callable[[BaseException], str]] = {
    ("state.errors", "InvalidDatabaseUrl"): lambda e: f"{e}; {DATABASE_HINT}",
    ("state.errors", "DatabaseUnavailable"): lambda e: f"{e}; {DATABASE_HINT}",
    ("reconciler.cli.stored_outputs", "OutputsUnreadable"): str,
    ("sqlite3", "OperationalError"): _database_problem,
    ("psycopg", "OperationalError"): _database_problem,
    ("sqlalchemy.exc", "OperationalError"): _database_problem,
    ("sqlalchemy.exc", "ArgumentError"): _database_problem,
    ("sqlalchemy.exc", "NoSuchModuleError"): _database_problem,
    ("reconciler.daemon.clouds_config", "CloudsConfigError"): str,
    ("providers.interface", "Permanent"): lambda e: f"the cloud refused: {e}",
    ("reconciler.daemon.http_endpoints", "ListenError"): str,
    ("reconciler.daemon.settings", "SettingsError"): str,
    ("reconciler.source.repository", "RepositoryUnavailable"): str,
}


def explained(error: BaseException) -> str | None:
    """The one line for an expected failure, or None for a bug (which keeps its traceback)."""
    for kind in type(error).__mro__:
        explain = EXPECTED.get((kind.__module__, kind.__name__))
        if explain is not None:
            return explain(error)
    return None


def debugging(argv: list[str]) -> bool:
    return DEBUG_FLAG in argv or os.environ.get("RECONCILER_DEBUG", "") not in ("", "0")


def run_explaining_failures(command: click.Command, prog_name: str) -> None:
    """Run the click command; an expected failure prints `Error: <line>` to stderr and exits 1."""
    try:
        command.main(prog_name=prog_name)
    except Exception as error:
        line = None if debugging(sys.argv[1:]) else explained(error)
        if line is None:
            raise
        click.echo(f"Error: {line} (--debug for a traceback)", err=True)
        raise SystemExit(1) from None
