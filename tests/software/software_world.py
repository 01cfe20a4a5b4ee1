"""A scenario world whose clouds serve software orchestration, with the agent API listening for real.

The engine steps on the world's stepped clock; the agent API is a real HTTP server on loopback
(port 0) over the same store, so real clients (curl, os-collect-config, urllib) poll and signal it.
"""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.software_records import StoredSoftware
from reconciler.engine import Engine, SoleWorkerLeases, StackStatus
from state.software import SoftwareStore
from tests.engine.world import World


class SoftwareWorld(World):
    """`World` with the software provider, servers' user data formats and a running agent API."""

    agent: AgentServer | None = None

    def start_worker(self, worker: str) -> Engine:
        if self.agent is None:
            self.agent = AgentServer(
                "127.0.0.1",
                0,
                lambda links: AgentApi(
                    self.store.software(),
                    links,
                    self.store.scaling(),
                    self._scaling_signal_kept,
                    self._resource_signal_kept,
                ),
            )
            self.agent.start()
        leases = SoleWorkerLeases(self.store, worker, self.clock)
        for shard in range(self.store.settings.shard_count):
            leases.want(shard)
        self.leases = leases
        records = StoredSoftware(self.store.software())
        return Engine(
            self.store,
            CloudRoot(self.clock, sim=self.sim, software=(records, self.agent.links)),
            self.clock,
            worker,
            leases=leases,
            sleeper=self.clock,
            random=random.Random(5),
            settings=self.settings,
        )

    def _scaling_signal_kept(self) -> None:
        """The agent API rings the engine of its process, as the daemon wires it."""
        engine = getattr(self, "engine", None)  # none yet while the first worker starts
        if engine is not None:
            engine.signal_arrived()

    def _resource_signal_kept(self, waiters: Collection[str] | None) -> None:
        engine = getattr(self, "engine", None)
        if engine is not None:
            engine.resource_signalled(waiters)

    def close(self) -> None:
        if self.agent is not None:
            self.agent.stop()
        super().close()

    @property
    def agent_url(self) -> str:
        assert self.agent is not None
        return self.agent.links.agent_url

    @property
    def software(self) -> SoftwareStore:
        return self.store.software()

    def server_entries(self, server_id: str) -> list[dict[str, Any]]:
        return self.software.server_metadata(server_id).entries

    def signal_deployment(self, entry: dict[str, Any], details: dict[str, Any]) -> int:
        """What heat-config-notify does for TEMP_URL_SIGNAL: PUT the results to deploy_signal_id."""
        url = next(item["value"] for item in entry["inputs"] if item["name"] == "deploy_signal_id")
        return put(url, details)


def put(url: str, details: Any, method: str = "PUT") -> int:
    request = urllib.request.Request(
        url, data=json.dumps(details).encode(), method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return int(answer.status)


@contextmanager
def converged_world(tmp_path: Path, database_url: str, template: str) -> Iterator[SoftwareWorld]:
    """A world whose stack `web` converged from `template` (committed as web.yaml), closed after."""
    world = SoftwareWorld(tmp_path, database_url)
    world.commit({"web.yaml": template})
    world.submit("web", "web.yaml")
    assert world.converge("web")["web"].status is StackStatus.CONVERGED
    try:
        yield world
    finally:
        world.close()
