"""The OpenStack provider under test: a simulated cloud served over HTTP on loopback, reached by
`OpenStackProvider.from_cloud` through a clouds.yaml exactly as a user's cloud would be, with every
request recorded on the wire.

The clouds.yaml is this fixture's own (with a password no other string contains), so tests can
check that the credentials never surface in logs or errors.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from providers.openstack import OpenStackProvider
from providers.openstack.request_log import RequestLog
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.faults import Faults
from providers.simulated.http.clouds_yaml import cloud_entry
from providers.simulated.http.embedded import serve_in_thread
from providers.simulated.settings import CloudSettings
from timekeeping.testing import SteppedClock

CLOUD_NAME = "sim-under-test"
DEFAULT_SETTINGS = CloudSettings(time_to_active=30.0)


@dataclass(frozen=True)
class CloudUnderTest:
    provider: OpenStackProvider
    cloud: SimulatedCloud  # the model behind the HTTP face: out-of-band changes and fault injection
    log: RequestLog
    clock: SteppedClock
    password: str


class StartCloud:
    """Serves a fresh simulated cloud and connects a provider to it; everything stops at teardown."""

    def __init__(self, stack: ExitStack, directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        self._stack = stack
        self._directory = directory
        self._monkeypatch = monkeypatch
        self._count = 0

    def __call__(
        self,
        settings: CloudSettings = DEFAULT_SETTINGS,
        faults: Faults | None = None,
        timeout: float = 10.0,
        clock: SteppedClock | None = None,
    ) -> CloudUnderTest:
        clock = clock or SteppedClock()
        cloud = SimulatedCloud(settings, faults=faults, clock=clock.now, random_source=random.Random(7))
        served = self._stack.enter_context(serve_in_thread(cloud))
        self._count += 1
        password = f"pw-{secrets.token_hex(12)}"
        clouds_yaml = self._directory / f"clouds-{self._count}.yaml"
        entry = cloud_entry(served.url, tuple(cloud.regions))
        entry["auth"]["password"] = password
        clouds_yaml.write_text(yaml.safe_dump({"clouds": {CLOUD_NAME: entry}}), encoding="utf-8")
        self._monkeypatch.setenv("OS_CLIENT_CONFIG_FILE", str(clouds_yaml))
        provider = OpenStackProvider.from_cloud(CLOUD_NAME, timeout=timeout)
        self._stack.callback(provider.connection.close)
        log = RequestLog().attach(provider.connection)
        return CloudUnderTest(provider, cloud, log, clock, password)


@pytest.fixture
def start_cloud(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[StartCloud]:
    with ExitStack() as stack:
        yield StartCloud(stack, tmp_path, monkeypatch)


@pytest.fixture
def sim(start_cloud: StartCloud) -> CloudUnderTest:
    return start_cloud()


__all__ = ["CloudUnderTest", "StartCloud", "sim", "start_cloud"]
