"""Fixtures shared by the state store's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from state.lease_settings import LeaseSettings
from state.store import Store, open_store
from timekeeping.testing import SteppedClock


@pytest.fixture
def one_shard_store(database_url: str) -> Iterator[Store]:
    """A store of one shard with hour-long leases, on each database, driven by a stepped clock."""
    clock = SteppedClock()
    opened = open_store(
        database_url, clock=clock, settings=LeaseSettings(shard_count=1, lease_seconds=3600), sleeper=clock
    )
    yield opened
    opened.close()
