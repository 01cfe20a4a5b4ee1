"""What a daemon remembers of agents' metadata versions, on two daemons of one fleet.

Given two stores on one database (two daemons) and a server whose agent polls its metadata, a
change made through a daemon is what that daemon answers at once; a change made through the other
is answered once the change counters are read again, at most `FRESHNESS_SECONDS` later; and a
document is read afresh, so a token revoked by either daemon reads nothing from then on.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from providers.heat.software_records import SERVER_TOKEN, token_digest
from state import open_store
from state.metadata_index import FRESHNESS_SECONDS
from state.software import DeploymentRow, SoftwareStore
from state.store import Store
from timekeeping.testing import SteppedClock

DIGEST = token_digest("a server token")


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def fleet(database_url: str, clock: SteppedClock) -> Iterator[tuple[Store, Store]]:
    first = open_store(database_url, clock=clock)
    second = open_store(database_url, clock=clock, upgrade_schema=False)
    yield first, second
    second.close()
    first.close()


def publish(software: SoftwareStore, config: str) -> None:
    entry = {"id": "deployment", "name": "config", "group": "script", "config": config}
    row = DeploymentRow("deployment", "server-1", "stack", "deployment", "CREATE", "IN_PROGRESS", "h", entry)
    software.put_deployment(row, None)


def polled(fleet: tuple[Store, Store]) -> float | None:
    """A server with a deployment, whose version the first daemon answered a poll with."""
    first, _ = fleet
    software = first.software()
    software.issue_token(DIGEST, SERVER_TOKEN, "marker")
    software.bind_server("marker", "server-1")
    publish(software, "echo one")
    version = software.metadata_version(DIGEST)
    assert version is not None and version.server_id == "server-1"
    return version.modified_at


def test_a_change_made_through_a_daemon_is_what_it_answers_at_once(
    fleet: tuple[Store, Store],
) -> None:
    before = polled(fleet)
    first, _ = fleet
    publish(first.software(), "echo two")
    assert first.software().remembered_metadata_version(DIGEST) is None
    after = first.software().metadata_version(DIGEST)
    assert after is not None and after.modified_at != before
    assert first.software().remembered_metadata_version(DIGEST) == after


def test_a_change_made_through_another_daemon_is_answered_once_the_counters_are_read_again(
    fleet: tuple[Store, Store], clock: SteppedClock
) -> None:
    before = polled(fleet)
    first, second = fleet
    clock.advance(1)
    publish(second.software(), "echo two")
    changed = second.software().metadata_version(DIGEST)
    assert changed is not None and changed.modified_at != before
    clock.advance(FRESHNESS_SECONDS + 0.1)
    assert first.software().metadata_version(DIGEST) == changed
    assert first.software().remembered_metadata_version(DIGEST) == changed


def test_a_token_revoked_by_another_daemon_reads_nothing_afresh_at_once_and_nothing_at_all_soon_after(
    fleet: tuple[Store, Store], clock: SteppedClock
) -> None:
    polled(fleet)
    first, second = fleet
    second.software().revoke_server("server-1")
    assert first.software().metadata_version(DIGEST, afresh=True) is None
    clock.advance(FRESHNESS_SECONDS + 0.1)
    assert first.software().metadata_version(DIGEST) is None
    assert first.software().remembered_metadata_version(DIGEST) is None


def test_a_token_revoked_by_its_own_daemon_is_forgotten_at_once(fleet: tuple[Store, Store]) -> None:
    polled(fleet)
    first, _ = fleet
    first.software().revoke_tokens("marker")
    assert first.software().remembered_metadata_version(DIGEST) is None
    assert first.software().metadata_version(DIGEST) is None
