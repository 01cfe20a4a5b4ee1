"""Fixtures for the HTTP face: a simulated cloud served on a free loopback port, and a real
openstacksdk connection to it read from the clouds.yaml the server wrote."""

from __future__ import annotations

import random
from collections.abc import Iterator

import openstack
import pytest

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.embedded import ServedCloud, serve_in_thread
from providers.simulated.settings import CloudSettings
from tests.simulated.sdk_connection import connect
from timekeeping.testing import SteppedClock


@pytest.fixture
def clock() -> SteppedClock:
    return SteppedClock()


@pytest.fixture
def served(clock: SteppedClock) -> Iterator[ServedCloud]:
    cloud = SimulatedCloud(
        CloudSettings(time_to_active=5.0, quotas={"gigabytes": 100}),
        clock=clock.now,
        sleep=clock.sleep,
        random_source=random.Random(11),
    )
    with serve_in_thread(cloud) as running:
        yield running


@pytest.fixture
def connection(served: ServedCloud) -> Iterator[openstack.connection.Connection]:
    conn = connect(served)
    yield conn
    conn.close()
