"""The simulated cloud's agents: every server booted with SOFTWARE_CONFIG user data runs its
scripts through the agent API, in a sandbox, once.

Given a stack whose server boots with SOFTWARE_CONFIG user data and has a script deployment and a
puppet deployment, when the simulated cloud's agents run, then the boot script and the deployment
script each ran once (a ledger file outside the sandbox says so), the script's output became the
deployment's attributes, the puppet config was answered by the stand-in, and an agent fleet
started again over the same cloud and state runs nothing again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reconciler.agent.sandbox import network_cut, sandboxed_script_hook
from reconciler.daemon.sim_agents import SimulatedAgents
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld

SCRIPTED = """
heat_template_version: 2018-08-31
parameters:
  ledger: {type: string}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: ledger}]
      outputs: [{name: greeting}]
      config: |
        #!/bin/sh
        echo "deployed $deploy_action" >> "$ledger"
        echo "hello from $deploy_server_id" > "$heat_outputs_path.greeting"
        echo "ran in $PWD"
  other:
    type: OS::Heat::SoftwareConfig
    properties: {group: puppet, config: "class {}"}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
      user_data:
        str_replace:
          template: "#!/bin/sh\\necho booted >> LEDGER\\n"
          params: {LEDGER: {get_param: ledger}}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      input_values: {ledger: {get_param: ledger}}
  puppet:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: other}
      server: {get_resource: server}
outputs:
  greeting: {value: {get_attr: [deployment, greeting]}}
  stdout: {value: {get_attr: [deployment, deploy_stdout]}}
  puppet: {value: {get_attr: [puppet, deploy_stdout]}}
  server: {value: {get_resource: server}}
"""

NETWORK_PROBE = f"""#!{sys.executable}
import os, socket
try:
    socket.create_connection(("127.0.0.1", int(os.environ["port"])), timeout=2).close()
except OSError as error:
    print("unreachable:", error)
else:
    print("reached")
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    world.commit({"scripted.yaml": SCRIPTED})
    yield world
    world.close()


def agents_for(world: SoftwareWorld, state_dir: Path) -> SimulatedAgents:
    agents = SimulatedAgents(lambda: world.cloud, state_dir, interval=0.2, time_limit=60, scan_interval=0.1)
    agents.start()
    return agents


def converge_in_real_time(world: SoftwareWorld, stack: str, seconds: float = 60.0) -> StackStatus:
    """Step the engine while the agents work in real time, until the stack settles."""
    status: list[StackStatus] = []

    def settled() -> bool:
        world.engine.step()
        world.engine.wait_for_calls()
        world.clock.sleep(1.0)
        report = world.engine.converge((stack,), world.clock.now())[stack]
        status[:] = [report.status]
        return report.status in (StackStatus.CONVERGED, StackStatus.FAILED)

    wait_until(settled, seconds)
    return status[0]


def wait_until(condition: Callable[[], bool], seconds: float) -> None:
    pause = threading.Event()
    for _ in range(int(seconds / 0.05)):
        if condition():
            return
        pause.wait(0.05)
    raise AssertionError(f"still not true after {seconds} s")


def test_the_simulated_clouds_agents_run_a_servers_scripts_once_across_a_restart(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    ledger = tmp_path / "ledger"
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("scripted", "scripted.yaml", {"ledger": str(ledger)})
        assert converge_in_real_time(world, "scripted") is StackStatus.CONVERGED
    finally:
        agents.stop()
    outputs = world.outputs("scripted")
    assert outputs["greeting"] == f"hello from {outputs['server']}\n"
    assert str(tmp_path / "agents" / outputs["server"]) in outputs["stdout"]  # its own directory
    assert "no hook for group 'puppet'" in outputs["puppet"]
    assert ledger.read_text(encoding="utf-8") == "booted\ndeployed CREATE\n"

    restarted = agents_for(world, tmp_path / "agents")
    try:
        wait_until(lambda: restarted.scan() == 1 and len(restarted.runs(outputs["server"])) == 3, 10)
        threading.Event().wait(1.0)  # several polls
    finally:
        restarted.stop()
    assert ledger.read_text(encoding="utf-8") == "booted\ndeployed CREATE\n"


@pytest.mark.skipif(not network_cut(), reason="user namespaces are not available here")
def test_a_sandboxed_script_reaches_no_network_not_even_the_agent_api(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    port = world.agent_url.rsplit(":", 1)[1]
    probe = {"config": NETWORK_PROBE, "inputs": [{"name": "port", "value": port}], "outputs": []}
    result = sandboxed_script_hook(probe, tmp_path / "runs", 30)
    assert result["deploy_stdout"].startswith("unreachable:"), result
