"""Servers in isolated networks: the config in user data (and on a config drive), NO_SIGNAL.

Given a server that cannot reach the agent API, whose config is inlined in its user data
(`user_data: {get_resource: config}`, RAW) and delivered on a config drive, and a deployment of
that config with `signal_transport: NO_SIGNAL`, when the stack converges on the simulated cloud
with its agents, then the deployment completes without any signal, and the server ran its config
once at boot (its output kept with the server's runs), without ever polling the agent API.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_sim_agents import agents_for, converge_in_real_time, wait_until

ISOLATED = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      config: "#!/bin/sh\\necho configured at boot\\n"
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      config_drive: true
      user_data_format: RAW
      user_data: {get_resource: config}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      signal_transport: NO_SIGNAL
outputs:
  server: {value: {get_resource: server}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    world.commit({"isolated.yaml": ISOLATED})
    yield world
    world.close()


def test_a_server_in_an_isolated_network_runs_its_config_from_user_data_and_needs_no_signal(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("isolated", "isolated.yaml")
        assert converge_in_real_time(world, "isolated") is StackStatus.CONVERGED
        server_id = world.outputs("isolated")["server"]
        (server,) = world.live("servers")
        assert server["config_drive"] and str(server["_user_data"]).startswith("#!/bin/sh")
        wait_until(lambda: bool(agents.runs(server_id)), 30)
        threading.Event().wait(1.0)  # several poll intervals: nothing comes by polling
        runs = agents.runs(server_id)
    finally:
        agents.stop()
    (boot,) = runs.values()
    assert boot["result"]["deploy_stdout"] == "configured at boot\n"
    assert world.records("isolated")["deployment"].attributes.get("deploy_status_code") in (None, 0)
