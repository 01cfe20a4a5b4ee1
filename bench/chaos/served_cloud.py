"""The one simulated cloud every daemon of a run talks to: `reconciler sim serve` on loopback.

The suite reaches it as any client would: the admin API (no token, loopback only) for faults and
counts, and the real openstacksdk, through the clouds.yaml entry the server wrote, for the
inventory the audit reads (Nova, Neutron and Cinder list calls, tags and metadata included).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bench.chaos.audit import CloudItem
from bench.chaos.lifetime import bound_to_us

CLOUD_NAME = "chaos"
START_TIMEOUT = 60.0
ADMIN_TIMEOUT = 10.0
LIST_ATTEMPTS = 20  # the audit's listings meet the injected faults like any client and retry


class ServedCloud:
    """A `reconciler sim serve` process, its URL and its clouds.yaml."""

    def __init__(self, directory: Path, *options: str) -> None:
        self.clouds_yaml = directory / "clouds.yaml"
        self.log_path = directory / "cloud.log"
        self._log = self.log_path.open("wb")
        command = [sys.executable, "-m", "reconciler.cli.main", "sim", "serve", "--host", "127.0.0.1"]
        command += ["--clouds-yaml", str(self.clouds_yaml), "--name", CLOUD_NAME, *options]
        self.process = subprocess.Popen(bound_to_us(command), stdout=self._log, stderr=subprocess.STDOUT)
        self.url = self._wait_for_url()

    def _wait_for_url(self) -> str:
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            for line in self.log_path.read_text(errors="replace").splitlines():
                if "serving at " in line:
                    return line.split("serving at ")[1].split()[0]
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"reconciler sim serve did not start: {self.log_path.read_text(errors='replace')}")

    def _admin(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=data, method=method)
        request.add_header("Content-Type", "application/json")
        with urllib.request.urlopen(request, timeout=ADMIN_TIMEOUT) as response:
            payload = response.read()
        return json.loads(payload) if payload else None

    def counts(self) -> dict[str, int]:
        """Items per collection, from the admin API (cheap: no listing)."""
        return dict(self._admin("GET", "/admin/stats")["counts"])

    def calls(self) -> dict[str, int]:
        return dict(self._admin("GET", "/admin/stats")["calls"])

    def set_faults(self, faults: Mapping[str, Any]) -> None:
        self._admin("PUT", "/admin/faults", faults)

    def inventory(self) -> dict[str, list[CloudItem]]:
        """Servers, ports and volumes as the list APIs show them, through openstacksdk."""
        import openstack.config
        import openstack.connection

        config = openstack.config.OpenStackConfig(config_files=[str(self.clouds_yaml)])
        connection = openstack.connection.Connection(config=config.get_one(cloud=CLOUD_NAME))
        try:
            return {
                "servers": _listed(
                    "servers", lambda: [s.to_dict() for s in connection.compute.servers(details=True)]
                ),
                "ports": _listed("ports", lambda: [p.to_dict() for p in connection.network.ports()]),
                "volumes": _listed(
                    "volumes", lambda: [v.to_dict() for v in connection.block_storage.volumes(details=True)]
                ),
            }
        finally:
            connection.close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()


def _listed(kind: str, read: Any) -> list[CloudItem]:
    last: Exception | None = None
    for attempt in range(LIST_ATTEMPTS):
        try:
            return [CloudItem.from_body(kind, body) for body in read()]
        except Exception as error:  # any fault the cloud injects: list again
            last = error
            time.sleep(min(2.0, 0.2 * (attempt + 1)))
    raise RuntimeError(f"listing {kind} failed {LIST_ATTEMPTS} times: {last}")
