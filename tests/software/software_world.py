"""A scenario world whose clouds serve software orchestration, and what an agent would do in it."""

from __future__ import annotations

import random
from typing import Any

from providers.heat.agent_links import AgentLinks
from providers.heat.deployment_signals import judge_signal
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.software_records import StoredSoftware
from reconciler.engine import Engine, SoleWorkerLeases
from state.software import SoftwareStore
from tests.engine.world import World

AGENT_URL = "http://agent.invalid:8788"


class SoftwareWorld(World):
    """`World` with the software provider and servers' user data formats, signals kept in its store."""

    def start_worker(self, worker: str) -> Engine:
        leases = SoleWorkerLeases(self.store, worker, self.clock)
        for shard in range(self.store.settings.shard_count):
            leases.want(shard)
        self.leases = leases
        records = StoredSoftware(self.store.software())
        return Engine(
            self.store,
            CloudRoot(self.clock, sim=self.sim, software=(records, AgentLinks(AGENT_URL))),
            self.clock,
            worker,
            leases=leases,
            sleeper=self.clock,
            random=random.Random(5),
            settings=self.settings,
        )

    @property
    def software(self) -> SoftwareStore:
        return self.store.software()

    def server_entries(self, server_id: str) -> list[dict[str, Any]]:
        return self.software.server_metadata(server_id).entries

    def signal_deployment(self, entry: dict[str, Any], details: dict[str, Any]) -> None:
        """What the agent API does with a deployment's signal (as heat-config-notify sends it)."""
        deployment_id = next(item["value"] for item in entry["inputs"] if item["name"] == "deploy_signal_id")
        token = deployment_id.rsplit("/", 1)[1]
        from providers.heat.software_records import token_digest

        grant = self.software.grant(token_digest(token))
        assert grant is not None
        verdict = judge_signal(details, entry["outputs"])
        self.software.record_deployment_signal(
            grant.subject, status=verdict.status, reason=verdict.reason, outputs=verdict.outputs
        )
