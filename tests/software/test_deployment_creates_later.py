"""A deployment's create waits only for its batched write: on a call pool's thread it gives the thread
back, and the deployment is answered once its row is written (never before). A thousand minions'
deployments would otherwise hold the pool's threads while their writes queue, and the servers'
attachments and polls behind them."""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future

import pytest

from providers.heat.software_provider import SoftwareProvider
from providers.heat.software_records import IN_PROGRESS, Deployment
from providers.interface import LiveResource, LiveStatus, Marker, Provider
from reconciler.daemon.metered_clouds import CallMeter, MeteredProvider
from reconciler.daemon.software_records import StoredSoftware, stored_software
from reconciler.engine.call_pool import CallPool, PendingCall
from reconciler.engine.outcomes import Applied, Failed, RetryLater
from reconciler.engine.provider_calls import call_create
from state import open_store
from state.store import Store
from timekeeping.testing import SteppedClock

WAIT = 10.0  # seconds a test waits at most; never reached when creates are answered
DEPLOYMENT = "OS::Heat::SoftwareDeployment"


class GatedRecords(StoredSoftware):
    """The store's records, each deployment's write held until `gate` is set (or failing with
    `error`), as a batch queued behind other writers would be."""

    def __init__(self, records: StoredSoftware) -> None:
        super().__init__(records.store)
        self.gate = threading.Event()
        self.error: Exception | None = None

    def submit_deployment(self, deployment: Deployment, token_digest: str | None) -> Future[None]:
        written: Future[None] = Future()

        def write() -> None:
            self.gate.wait(WAIT)
            try:
                if self.error is not None:
                    raise self.error
                StoredSoftware.submit_deployment(self, deployment, token_digest).result()
            except Exception as error:
                written.set_exception(error)
            else:
                written.set_result(None)

        threading.Thread(target=write, daemon=True).start()
        return written


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    opened = open_store(database_url, clock=SteppedClock())
    yield opened
    opened.close()


@pytest.fixture
def records(store: Store) -> GatedRecords:
    return GatedRecords(stored_software(store, "http://127.0.0.1:1")[0])


@pytest.fixture
def provider(store: Store, records: GatedRecords) -> SoftwareProvider:
    links = stored_software(store, "http://127.0.0.1:1")[1]
    return SoftwareProvider(records, links, SteppedClock())


def config_id(provider: SoftwareProvider) -> str:
    made = provider.create(
        "OS::Heat::SoftwareConfig",
        {"group": "script", "config": "#!/bin/sh\necho configured\n"},
        Marker("stack", "config", "1"),
    )
    return made.physical_id


def create_on_pool(
    pool: CallPool, inbox: deque[PendingCall], provider: Provider, server: str, config: str
) -> PendingCall:
    properties = {"config": config, "server": server}
    marker = Marker("stack", f"deployment-{server}", "2")
    return pool.submit(
        lambda: call_create(provider, DEPLOYMENT, properties, marker, adopt_first=False), inbox
    )


def test_a_deployment_create_gives_its_thread_back_and_is_answered_once_written(
    provider: SoftwareProvider, records: GatedRecords
) -> None:
    config = config_id(provider)
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()

    deployment = create_on_pool(pool, inbox, provider, "server-1", config)
    other = pool.submit(lambda: "attached", inbox)
    pool.wait_delivered([other], WAIT)  # the pool's one thread was not held by the write waiting

    assert list(inbox) == [other] and not deployment.delivered
    records.gate.set()
    pool.wait_delivered([deployment], WAIT)
    outcome = deployment.outcome()
    assert isinstance(outcome, Applied) and not outcome.adopted
    live: LiveResource = outcome.live
    assert (live.type, live.status) == (DEPLOYMENT, LiveStatus.IN_PROGRESS)
    stored = records.deployments([live.physical_id])[live.physical_id]  # written before it was answered
    assert (stored.server_id, stored.status, stored.published) == ("server-1", IN_PROGRESS, True)
    metadata = records.store.server_metadata("server-1")
    assert [entry["id"] for entry in metadata.entries] == [stored.entry["id"]]
    assert pool.calls_out() == 0
    pool.shutdown()


def test_a_failed_write_is_the_creates_outcome(provider: SoftwareProvider, records: GatedRecords) -> None:
    config = config_id(provider)
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()
    records.error = OSError("database is locked")
    records.gate.set()

    deployment = create_on_pool(pool, inbox, provider, "server-1", config)
    pool.wait_delivered([deployment], WAIT)

    outcome = deployment.outcome()
    assert isinstance(outcome, RetryLater) and "database is locked" in outcome.message
    pool.shutdown()


def test_a_create_refused_before_its_write_is_answered_at_once(provider: SoftwareProvider) -> None:
    config = config_id(provider)
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()

    refused = create_on_pool(pool, inbox, provider, "", config)  # the gate never opens: no write asked
    pool.wait_delivered([refused], WAIT)

    outcome = refused.outcome()
    assert isinstance(outcome, Failed) and "the server property is empty" in outcome.message
    pool.shutdown()


def test_off_a_pool_thread_the_create_waits_for_its_write(
    provider: SoftwareProvider, records: GatedRecords
) -> None:
    config = config_id(provider)
    records.gate.set()

    outcome = call_create(
        provider,
        DEPLOYMENT,
        {"config": config, "server": "server-2"},
        Marker("stack", "d", "3"),
        adopt_first=False,
    )

    assert isinstance(outcome, Applied)
    assert outcome.live.physical_id in records.deployments([outcome.live.physical_id])


def test_a_metered_create_answered_later_is_counted_once_when_answered(
    provider: SoftwareProvider, records: GatedRecords
) -> None:
    config = config_id(provider)
    meter = CallMeter()
    metered = MeteredProvider(provider, meter)
    pool = CallPool(1, "test")
    inbox: deque[PendingCall] = deque()

    deployment = create_on_pool(pool, inbox, metered, "server-1", config)
    pool.wait_delivered([pool.submit(lambda: None, inbox)], WAIT)
    assert meter.calls() == {}  # not answered yet: not counted yet

    records.gate.set()
    pool.wait_delivered([deployment], WAIT)
    assert isinstance(deployment.outcome(), Applied)
    assert meter.calls() == {("orchestration", "create", "ok"): 1}
    pool.shutdown()
