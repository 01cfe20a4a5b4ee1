"""The simulated cloud served by `reconciler sim serve` in its own process, and the OpenStack
provider connected to it from the clouds.yaml the server wrote: what the provider benchmarks share.

A separate process keeps the cloud's CPU out of the client's measurements (`time.process_time`).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from providers.openstack import OpenStackProvider
from providers.openstack.request_log import RequestLog


@dataclass(frozen=True)
class ServedProvider:
    provider: OpenStackProvider
    log: RequestLog
    url: str


@contextlib.contextmanager
def served_provider(directory: Path, *options: str, timeout: float = 120.0) -> Iterator[ServedProvider]:
    """Serve a cloud (`options` are `reconciler sim serve` options) and connect a provider to it."""
    clouds_yaml = directory / "clouds.yaml"
    command = [sys.executable, "-m", "reconciler.cli.main", "sim", "serve", "--clouds-yaml", str(clouds_yaml)]
    process = subprocess.Popen([*command, *options], stderr=subprocess.PIPE, text=True)
    try:
        url = _serving_url(process)
        os.environ["OS_CLIENT_CONFIG_FILE"] = str(clouds_yaml)
        provider = OpenStackProvider.from_cloud("simulated", timeout=timeout)
        log = RequestLog().attach(provider.connection)
        yield ServedProvider(provider, log, url)
        provider.connection.close()
    finally:
        process.terminate()
        process.wait(timeout=60)


def _serving_url(process: subprocess.Popen[str]) -> str:
    assert process.stderr is not None
    for line in process.stderr:
        if "serving at" in line:
            return line.split("serving at ")[1].split()[0]
    raise SystemExit("reconciler sim serve did not start")
