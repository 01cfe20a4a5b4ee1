"""The simulated cloud's agents: every server booted with SOFTWARE_CONFIG user data runs its
scripts through the agent API, in a sandbox, once.

Given a stack whose server boots with SOFTWARE_CONFIG user data and has a script deployment and a
puppet deployment, when the simulated cloud's agents run, then the boot script and the deployment
script each ran once, in a directory of their own, the script's output became the deployment's
attributes, the puppet config was answered by the stand-in, and an agent fleet started again over
the same cloud and state remembers the three runs and executes none again.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from reconciler.agent.sandbox import isolation_available, sandboxed_script_hook
from reconciler.daemon.sim_agents import SimulatedAgents
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld

SCRIPTED = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      outputs: [{name: greeting}]
      config: |
        #!/bin/sh
        echo "hello from $deploy_server_id" > "$heat_outputs_path.greeting"
        echo "ran $deploy_action in $PWD"
  other:
    type: OS::Heat::SoftwareConfig
    properties: {group: puppet, config: "class {}"}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
      user_data: "#!/bin/sh\\necho booted\\n"
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
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
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("scripted", "scripted.yaml")
        assert converge_in_real_time(world, "scripted") is StackStatus.CONVERGED
        executed = agents.executed()
    finally:
        agents.stop()
    outputs = world.outputs("scripted")
    assert outputs["greeting"] == f"hello from {outputs['server']}\n"
    assert outputs["stdout"].startswith(f"ran CREATE in {tmp_path / 'agents' / outputs['server']}")
    assert "no hook for group 'puppet'" in outputs["puppet"]
    assert executed == 3  # the boot script, the script, the puppet config

    restarted = agents_for(world, tmp_path / "agents")
    try:
        wait_until(lambda: restarted.scan() == 1 and len(restarted.runs(outputs["server"])) == 3, 10)
        threading.Event().wait(1.0)  # several polls
        assert restarted.executed() == 0
        runs = restarted.runs(outputs["server"])
    finally:
        restarted.stop()
    (boot,) = [run for run_id, run in runs.items() if run_id.startswith("boot-")]
    assert boot["result"]["deploy_stdout"] == "booted\n"


@pytest.mark.skipif(not isolation_available(), reason="user namespaces are not available here")
def test_a_sandboxed_script_reaches_no_network_not_even_the_agent_api(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    port = world.agent_url.rsplit(":", 1)[1]
    probe = {"config": NETWORK_PROBE, "inputs": [{"name": "port", "value": port}], "outputs": []}
    result = sandboxed_script_hook(probe, tmp_path / "runs", 30)
    assert result["deploy_stdout"].startswith("unreachable:"), result


@pytest.mark.skipif(not isolation_available(), reason="user namespaces are not available here")
def test_a_sandboxed_script_writes_only_in_its_own_directory(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    script = f'#!/bin/sh\necho x > {outside}\necho kept > "$TMPDIR/inside" && cat "$HOME/inside"'
    result = sandboxed_script_hook({"config": script, "inputs": [], "outputs": []}, tmp_path / "runs", 30)
    assert result["deploy_stdout"] == "kept\n"
    assert "Read-only file system" in result["deploy_stderr"]
    assert not outside.exists()
