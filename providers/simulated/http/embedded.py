"""Serve a simulated cloud from a thread, for tests and benchmarks: on 127.0.0.1, port 0 (any free
port), with a clouds.yaml written for it; stopped and joined on leaving the `with` block.

    with serve_in_thread() as served:
        connection = openstack.connect(cloud=served.cloud_name, config_files=[served.clouds_yaml])
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.http.clouds_yaml import write_clouds_yaml
from providers.simulated.http.server import CloudHTTPServer

DEFAULT_CLOUD_NAME = "simulated"


@dataclass(frozen=True)
class ServedCloud:
    url: str  # e.g. http://127.0.0.1:41234
    clouds_yaml: Path
    cloud_name: str
    cloud: SimulatedCloud  # the model behind it, for out-of-band changes and counts

    @property
    def auth_url(self) -> str:
        return f"{self.url}/identity/v3"


@contextlib.contextmanager
def serve_in_thread(
    cloud: SimulatedCloud | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    clouds_yaml: Path | None = None,
    cloud_name: str = DEFAULT_CLOUD_NAME,
    alarm_interval: float | None = None,
) -> Iterator[ServedCloud]:
    """Serve until the block ends; with `alarm_interval`, alarms are evaluated that often (seconds)."""
    cloud = cloud or SimulatedCloud()
    server = CloudHTTPServer(cloud, host, port)
    if alarm_interval is not None:
        server.alarm_evaluator.start(alarm_interval)
    thread = threading.Thread(target=server.serve_forever, name="simulated-cloud", daemon=True)
    thread.start()
    with contextlib.ExitStack() as stack:
        if clouds_yaml is None:
            directory = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="simulated-cloud-")))
            clouds_yaml = directory / "clouds.yaml"
        write_clouds_yaml(clouds_yaml, cloud_name, server.url, tuple(cloud.regions))
        try:
            yield ServedCloud(server.url, clouds_yaml, cloud_name, cloud)
        finally:
            server.alarm_evaluator.stop()
            server.shutdown()
            server.server_close()
            thread.join()
