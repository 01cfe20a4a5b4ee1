"""Commands that only read never change the database: no file made, no schema upgraded.

`reconciler outputs` may run beside a service of another version: a database at an older schema
is refused in one line saying what to do, and left at its schema; a SQLite file that does not
exist is named, not created.
"""

from __future__ import annotations

from pathlib import Path

from reconciler.cli.stored_outputs import schema_head, stored_outputs
from state import open_store
from state.migrate import current_revision, head_revision, upgrade
from tests.foundation.test_cli_failures import one_line_error, reconciler
from timekeeping import SystemClock


def test_outputs_on_a_missing_database_file_names_it_and_creates_nothing(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "state.sqlite"
    missing.parent.mkdir()

    line = one_line_error(reconciler(["outputs", "app", "--database", f"sqlite:///{missing}"], tmp_path))

    assert f"no state database at {missing}" in line
    assert not missing.exists()


def test_outputs_on_an_older_schema_refuses_and_leaves_it_as_it_was(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url, "0005")

    line = one_line_error(reconciler(["outputs", "app", "--database", url], tmp_path))

    assert "is at schema 0005" in line and f"reads {head_revision()}" in line
    assert "reconciler db upgrade" in line
    assert current_revision(url) == "0005"


def test_outputs_reads_a_database_at_this_codes_schema(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'state.sqlite'}"
    upgrade(url)

    line = one_line_error(reconciler(["outputs", "app", "--database", url], tmp_path))

    assert "no stack named 'app'" in line


def test_the_schema_outputs_expects_is_alembics_head() -> None:
    assert schema_head() == head_revision()


def test_outputs_reads_a_stacks_outputs_on_either_database(database_url: str) -> None:
    store = open_store(database_url, clock=SystemClock())
    try:
        store.ensure_stack("network")
        store.store_outputs("network", {"net_id": "n-1", "cidrs": ["10.0.0.0/24"]})
    finally:
        store.close()

    shown = stored_outputs(database_url, "network")

    assert shown == {"net_id": "n-1", "cidrs": ["10.0.0.0/24"]}
    assert stored_outputs(database_url, "app") is None
