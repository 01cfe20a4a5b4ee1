"""`reconciler db upgrade` and `reconciler shards`, run as a user would, against both databases."""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli
from state.lease_settings import LeaseSettings
from state.migrate import head_revision
from state.store import open_store
from state.workers import WorkerIdentity
from timekeeping import SystemClock

ISO_8601 = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$")


def test_db_upgrade_creates_the_schema_then_reports_it_is_current(database_url: str) -> None:
    runner = CliRunner()
    first = runner.invoke(cli, ["db", "upgrade", "--database", database_url])
    again = runner.invoke(cli, ["db", "upgrade", "--database", database_url])

    assert first.exit_code == 0, first.output
    assert f"upgraded from an empty database to {head_revision()}" in first.output
    assert again.exit_code == 0 and f"already at the newest schema ({head_revision()})" in again.output


def test_shards_json_has_the_documented_shape(database_url: str) -> None:
    store = open_store(database_url, clock=SystemClock(), settings=LeaseSettings(shard_count=4))
    try:
        store.balance(WorkerIdentity("worker-a", "host-a", 4242))
    finally:
        store.close()

    result = CliRunner().invoke(cli, ["shards", "--database", database_url, "--format", "json"])

    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert set(document) == {"shards", "workers"}
    assert [shard["shard"] for shard in document["shards"]] == [0, 1, 2, 3]
    for shard in document["shards"]:
        assert set(shard) == {"shard", "owner", "epoch", "expires_at", "expired"}
        assert (shard["owner"], shard["epoch"], shard["expired"]) == ("worker-a", 1, False)
        assert ISO_8601.match(shard["expires_at"])
    (worker,) = document["workers"]
    assert set(worker) == {"id", "host", "pid", "heartbeat_at"}
    assert (worker["id"], worker["host"], worker["pid"]) == ("worker-a", "host-a", 4242)
    assert ISO_8601.match(worker["heartbeat_at"])


def test_shards_text_lists_holders_and_live_workers(sqlite_url: str) -> None:
    store = open_store(sqlite_url, clock=SystemClock(), settings=LeaseSettings(shard_count=2))
    try:
        store.balance(WorkerIdentity("worker-a", "host-a", 1))
    finally:
        store.close()

    result = CliRunner().invoke(cli, ["shards", "--database", sqlite_url])

    assert result.exit_code == 0, result.output
    assert re.search(r"^\s+0\s+1\s+\S+\s+worker-a$", result.output, re.MULTILINE)
    assert "1 live worker(s)" in result.output


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["shards", "--database", "mysql://user:s3cret@db/state"], "unsupported database backend 'mysql'"),
        (["db", "upgrade", "--database", "not a url"], "not a database URL"),
        (["shards", "--database", "postgresql://user:s3cret@127.0.0.1:1/state"], "cannot reach"),
    ],
    ids=["unsupported backend", "garbage", "unreachable server"],
)
def test_bad_database_urls_get_a_clear_error_without_the_password(arguments: list[str], message: str) -> None:
    result = CliRunner().invoke(cli, arguments)
    assert result.exit_code != 0
    assert message in result.output
    assert "s3cret" not in result.output


def test_shards_on_an_empty_database_says_to_upgrade_first(sqlite_url: str) -> None:
    result = CliRunner().invoke(cli, ["shards", "--database", sqlite_url])
    assert result.exit_code != 0
    assert "run `reconciler db upgrade`" in result.output
