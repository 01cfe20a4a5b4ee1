"""More calls at once than requests' default pool of 10 connections per host: every connection is
kept for the next call, none is opened only to be discarded (urllib3's "Connection pool is full,
discarding connection", which filled the daemon's log). Through the real openstacksdk against the
simulated cloud over HTTP, whose latency keeps the calls overlapping."""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

import pytest

from providers.simulated.settings import CloudSettings, Latency
from tests.openstack.conftest import StartCloud
from tests.openstack.scenario import given_a_network

CALLS_AT_ONCE = 40  # four times requests' default pool


def test_calls_past_the_default_pool_size_reuse_their_connections(
    start_cloud: StartCloud, caplog: pytest.LogCaptureFixture
) -> None:
    sim = start_cloud(CloudSettings(latency=Latency(per_operation={"list": 0.3})))
    network = given_a_network(sim.provider)
    caplog.set_level(logging.WARNING, logger="urllib3")

    def observe(_: int) -> int:
        return len(sim.provider.observe("OS::Neutron::Net", [network.net.physical_id]))

    with ThreadPoolExecutor(CALLS_AT_ONCE) as pool:
        seen = list(pool.map(observe, range(CALLS_AT_ONCE * 2)))

    assert seen == [1] * CALLS_AT_ONCE * 2
    assert [record.getMessage() for record in caplog.records if "pool is full" in record.getMessage()] == []
