"""The simulated cloud's agents play the VMs of every region it serves: a server booted with a script
in RegionTwo gets its agent as one in RegionOne does."""

from __future__ import annotations

from pathlib import Path

from providers.interface import Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from reconciler.daemon.sim_agents import SimulatedAgents

BOOTED = {
    "image": "cirros-0.6.2-x86_64-disk",
    "flavor": "m1.small",
    "user_data_format": "RAW",
    "user_data": "#!/bin/sh\necho booted\n",
}


def test_a_server_booted_in_another_region_gets_its_agent(tmp_path: Path) -> None:
    cloud = SimulatedCloud(CloudSettings(regions=("RegionTwo",)))
    home = SimulatedProvider(cloud)
    home.create("OS::Nova::Server", BOOTED, Marker("app", "near", "record-1"))
    home.in_region("RegionTwo").create("OS::Nova::Server", BOOTED, Marker("app/far", "far", "record-2"))
    agents = SimulatedAgents(lambda: cloud, tmp_path / "agents", interval=60.0)
    try:
        assert agents.scan() == 2
    finally:
        agents.stop(5.0)
