"""A deployment's signal kept by one daemon of a fleet wakes the daemon holding its stack, on PostgreSQL.

Given two daemons on one PostgreSQL database, the first holding every shard with a deployment that
has waited a minute for its signal (so its polls have slowed to the signal pace) and listening for
the fleet's notices, the second holding none and serving the agent API, when the agent PUTs its
result to the second daemon's copy of the signal URL, then the first daemon's engine completes the
deployment at its next passes, without time moving on to its next slow poll.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.signal_doorbell import SignalDoorbell
from reconciler.engine import StackStatus
from state.store import Store, open_store
from tests.software.software_world import SoftwareWorld, put
from tests.software.test_deployment_scenarios import TEMPLATE, deployed_entry
from timekeeping import SystemClock

pytestmark = pytest.mark.postgres

HEARD_WITHIN = 10.0  # seconds of real time for the notice to travel through the database


@pytest.fixture
def owner(tmp_path: Path, postgres_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, postgres_url)
    world.commit({"app.yaml": TEMPLATE})
    yield world
    world.close()


@pytest.fixture
def other_daemon(postgres_url: str) -> Iterator[AgentServer]:
    """The second daemon: its own store and agent API; its doorbell wakes an engine holding nothing."""
    store: Store = open_store(postgres_url, clock=SystemClock(), upgrade_schema=False)
    doorbell = SignalDoorbell()
    server = AgentServer(
        "127.0.0.1",
        0,
        lambda links: AgentApi(
            store.software(), links, store.scaling(), doorbell.ring, doorbell.ring_resources
        ),
    )
    server.start()
    yield server
    server.stop()
    store.close()


def test_a_deployment_signal_kept_by_another_daemon_completes_it_at_the_holders_next_passes(
    owner: SoftwareWorld, other_daemon: AgentServer
) -> None:
    holder = SignalDoorbell()
    holder.engine = owner.engine
    # as the daemon wires it
    listener = owner.store.scaling_signal_listener(holder.ring, holder.ring_resources)
    assert listener is not None
    listener.start()
    try:
        assert listener.wait_listening(HEARD_WITHIN)
        entry = deployed_entry(owner)
        owner.pass_time(60.0)
        assert owner.converge("app", within=0.0)["app"].status is StackStatus.PROGRESSING
        url = next(item["value"] for item in entry["inputs"] if item["name"] == "deploy_signal_id")  # type: ignore[attr-defined]
        elsewhere = str(url).replace(owner.agent_url, other_daemon.links.agent_url)
        assert elsewhere != url
        before = owner.clock.now()

        assert put(elsewhere, {"deploy_stdout": "done", "deploy_status_code": 0, "result": "hi"}) == 200

        deadline = time.monotonic() + HEARD_WITHIN
        while owner.converge("app", within=0.0)["app"].status is not StackStatus.CONVERGED:
            assert time.monotonic() < deadline, "the holder never acted on the signal"
            owner.engine.step()
            owner.engine.wait_for_calls()
            time.sleep(0.05)
        assert owner.clock.now() == before
    finally:
        listener.stop()
