"""A scaling signal kept by one daemon of a fleet wakes the daemon holding its shard, on PostgreSQL.

Given two daemons on one PostgreSQL database, the first holding every shard (its engine converged
a group and has just read its signals) and listening for the fleet's scaling signals, the second
holding none and serving the agent API, when an alarm is POSTed to the second daemon's copy of the
policy's `alarm_url`, then the first daemon's engine scales the group at its next pass, without
time moving on to its next read of the signals.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.signal_doorbell import SignalDoorbell
from state.store import Store, open_store
from tests.software.software_world import SoftwareWorld, converged_world
from tests.software.test_scaling_scenarios import GROUP, post
from timekeeping import SystemClock

pytestmark = pytest.mark.postgres

HEARD_WITHIN = 10.0  # seconds of real time for the notice to travel through the database


@pytest.fixture
def owner(tmp_path: Path, postgres_url: str) -> Iterator[SoftwareWorld]:
    with converged_world(tmp_path, postgres_url, GROUP) as world:
        yield world


@pytest.fixture
def other_daemon(postgres_url: str) -> Iterator[AgentServer]:
    """The second daemon: its own store and agent API; its doorbell wakes an engine holding nothing."""
    store: Store = open_store(postgres_url, clock=SystemClock(), upgrade_schema=False)
    doorbell = SignalDoorbell()
    server = AgentServer(
        "127.0.0.1", 0, lambda links: AgentApi(store.software(), links, store.scaling(), doorbell.ring)
    )
    server.start()
    yield server
    server.stop()
    store.close()


def test_an_alarm_kept_by_another_daemon_scales_the_group_at_the_holders_next_pass(
    owner: SoftwareWorld, other_daemon: AgentServer
) -> None:
    listener = owner.store.scaling_signal_listener(owner.engine.signal_arrived)
    assert listener is not None
    listener.start()
    try:
        assert listener.wait_listening(HEARD_WITHIN)
        owner.engine.step()  # the signals were just read: the next read is a poll interval away
        alarm_url = owner.outputs("web")["up"].replace(owner.agent_url, other_daemon.links.agent_url)
        assert alarm_url != owner.outputs("web")["up"]
        before = owner.clock.now()

        assert post(alarm_url) == 200

        deadline = time.monotonic() + HEARD_WITHIN
        while (
            owner.store.scaling().group_sizes("web").get("web_group") is None and time.monotonic() < deadline
        ):
            owner.engine.step()
            time.sleep(0.05)
        assert owner.clock.now() == before
        assert owner.store.scaling().group_sizes("web")["web_group"].size == 3
    finally:
        listener.stop()


def test_sqlite_has_no_listener(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'state.sqlite'}", clock=SystemClock())
    try:
        assert store.scaling_signal_listener(lambda: None) is None
    finally:
        store.close()
