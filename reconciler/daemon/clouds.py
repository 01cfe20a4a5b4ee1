"""The composition root for clouds: which providers serve a stack's `cloud` name.

`sim` is the built-in simulated cloud, kept in a file beside the database so that successive runs
see the same cloud (drift between runs is real drift); any other name is a `clouds.yaml` entry served
by the OpenStack provider. A name may carry a region (`<cloud>@<region>`, `cloud_addresses`): the
same cloud's other region, reached with the same credentials. The native OS::Heat::* types are
served by `providers.heat` on every cloud, inline on the engine's thread. Only this entry-layer
module imports concrete backends.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy.engine import make_url

from providers.heat import NativeHeatProvider
from providers.heat.agent_links import AgentLinks
from providers.heat.scaling_policies import ScalingPolicyProvider
from providers.heat.server_user_data import SoftwareServers
from providers.heat.software_provider import SoftwareProvider
from providers.heat.software_records import SoftwareRecords
from providers.heat.url_handles import UrlHandleProvider
from providers.interface import Provider
from providers.simulated.provider import SimulatedProvider
from reconciler.daemon.clouds_config import check_clouds_yaml
from reconciler.engine.cloud_addresses import entry_of, region_of
from reconciler.engine.provider_set import ProviderSet
from reconciler.engine.settings import EngineSettings
from timekeeping import Clock, Sleeper

SIM_CLOUD = "sim"
SIM_STATE_FILE = "sim-cloud.json"


def sim_cloud_path(database_url: str) -> Path:
    """Where the simulated cloud lives for a database: beside a SQLite file, else in the state dir."""
    url = make_url(database_url)
    if url.get_backend_name() == "sqlite" and url.database and url.database != ":memory:":
        database = Path(url.database)
        return database.with_name(f"{database.name}.{SIM_STATE_FILE}")
    return Path(platformdirs.user_state_dir("reconciler")) / SIM_STATE_FILE


class CloudRoot:
    """Providers by cloud name, made once each and shared by every stack naming that cloud."""

    def __init__(
        self,
        clock: Clock,
        *,
        sim_path: Path | None = None,
        sim: SimulatedProvider | None = None,
        sim_options: dict[str, Any] | None = None,
        connections: int | None = None,
        software: tuple[SoftwareRecords, AgentLinks] | None = None,
        sleeper: Sleeper | None = None,
    ) -> None:
        """`connections`: HTTP connections kept per cloud host, at least the calls the engine has
        in flight at once (default: the engine's default in-flight limit). `software`: where
        software orchestration keeps its rows and the agent API's address; without it, the
        software types are served by no provider. `sleeper`: how a provider waits for its cloud to
        be ready for the next change (default: a real sleep)."""
        self._clock = clock
        self._pause = time.sleep if sleeper is None else sleeper.sleep
        self._connections = connections or EngineSettings().in_flight_limit
        self._sim_path = sim_path
        self._sim = sim
        self._sim_options = sim_options or {}
        self._native = NativeHeatProvider(clock)
        self._software = software
        self._sets: dict[str, ProviderSet] = {}
        self._lock = threading.Lock()

    def for_cloud(self, cloud: str) -> ProviderSet:
        with self._lock:
            if cloud not in self._sets:
                self._sets[cloud] = ProviderSet(self._providers(cloud), inline=[self._native])
            return self._sets[cloud]

    def _providers(self, cloud: str) -> list[Provider]:
        """The cloud's provider; with software orchestration, its servers wrapped for user data
        formats (a later provider serves a type before an earlier one) and the software types."""
        provider = self._provider(cloud)
        if self._software is None:
            return [provider]
        records, links = self._software
        return [
            provider,
            SoftwareServers(provider, records, links),
            SoftwareProvider(records, links, self._clock),
            ScalingPolicyProvider(records, links),
            UrlHandleProvider(records, links, self._clock),
        ]

    def _provider(self, cloud: str) -> Provider:
        entry, region = entry_of(cloud), region_of(cloud)
        if entry == SIM_CLOUD:
            simulated = self.simulated()
            return simulated if region is None else simulated.in_region(region)
        from providers.openstack.provider import OpenStackProvider

        check_clouds_yaml(entry)  # a broken file is named as such, not as a missing cloud
        return OpenStackProvider.from_cloud(
            entry, connections=self._connections, region_name=region, pause=self._pause
        )

    def simulated(self) -> SimulatedProvider:
        """The simulated cloud, opened from its file (or fresh) on first use."""
        if self._sim is None:
            if self._sim_path is None:
                raise ValueError("no file for the simulated cloud was given")
            self._sim_path.parent.mkdir(parents=True, exist_ok=True)
            options = {"clock": self._clock.now, **self._sim_options}
            self._sim = SimulatedProvider.open(self._sim_path, **options)
        return self._sim

    def opened_simulated(self) -> SimulatedProvider | None:
        """The simulated cloud if a stack has opened it, else None (nothing is opened)."""
        return self._sim

    def save(self) -> None:
        """Persist the simulated cloud, if one was used and it has a file."""
        if self._sim is not None and self._sim.cloud.path is not None:
            self._sim.save()
