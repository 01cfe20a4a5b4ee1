"""The simulated cloud's agents: every server booted with a script or SOFTWARE_CONFIG user data runs
its scripts through the agent API, in a sandbox, once.

Given a stack whose server boots with SOFTWARE_CONFIG user data and has a script deployment and a
puppet deployment, when the simulated cloud's agents run, then the boot script and the deployment
script each ran once, in a directory of their own, the script's output became the deployment's
attributes, the puppet config was answered by the stand-in, and an agent fleet started again over
the same cloud and state remembers the three runs and executes none again.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.agent_gateway import AgentAddress, AgentGateway
from reconciler.agent.sandbox import isolation_available, relay_available, sandboxed_script_hook
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


SIGNALLING = """
heat_template_version: 2018-08-31
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
  waiting:
    type: OS::Heat::WaitCondition
    properties: {handle: {get_resource: handle}, count: 2, timeout: 600}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: RAW
      user_data:
        str_replace:
          template: |
            #!/bin/sh
            wc_notify --data-binary '{"status": "SUCCESS", "data": "first"}'
            wc_notify --data-binary '{"status": "SUCCESS", "data": "second"}'
          params:
            wc_notify: {get_attr: [handle, curl_cli]}
outputs:
  data: {value: {get_attr: [waiting, data]}}
"""

REACHES = """#!/bin/sh
curl -sS -m 5 -o /dev/null -w 'agent API %{http_code}\\n' "$agent_url/healthz"
curl -sS -m 5 "http://127.0.0.1:$other_port/" || echo "host port: unreachable"
curl -sS -m 5 http://192.0.2.1/ || echo "other address: unreachable"
"""
needs_sandbox = pytest.mark.skipif(
    not (isolation_available() and relay_available()),
    reason="user namespaces or iproute2 are not available here",
)


def agent_address(world: SoftwareWorld) -> AgentAddress:
    assert world.agent is not None
    address = AgentAddress.of(world.agent_url, world.agent.address)
    assert address is not None
    return address


def quick_fleet(world: SoftwareWorld) -> dict[str, Any]:
    """How the tests' fleets run: quick polls and scans, reaching `world`'s agent API."""
    return {"interval": 0.2, "time_limit": 60, "scan_interval": 0.1, "agent_address": agent_address(world)}


def agents_for(world: SoftwareWorld, state_dir: Path) -> SimulatedAgents:
    agents = SimulatedAgents(lambda: world.cloud, state_dir, **quick_fleet(world))
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


STARTER = """
import subprocess, sys, time
from reconciler.agent.sandbox import sandbox_prefix
loop = "while :; do date +%s%N > beat; sleep 0.05; done"
subprocess.Popen([*sandbox_prefix(sys.argv[1], sys.argv[1] + "/root"), "/bin/sh", "-c", loop])
time.sleep(120)
"""


@pytest.mark.skipif(not isolation_available(), reason="user namespaces are not available here")
def test_a_sandboxed_script_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    beat = tmp_path / "beat"
    starter = subprocess.Popen([sys.executable, "-c", STARTER, str(tmp_path)])
    try:
        deadline = time.monotonic() + 30
        while not beat.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert beat.exists(), "the sandboxed loop never ran"
    finally:
        starter.kill()  # as a daemon killed mid-deployment: no chance to stop its scripts
        starter.wait()
    time.sleep(1.0)
    last = beat.read_text()
    time.sleep(1.0)
    assert beat.read_text() == last


@needs_sandbox
def test_a_sandboxed_script_reaches_the_agent_api_through_the_gateway_and_nothing_else(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    other = socket.create_server(("127.0.0.1", 0))  # a service of the host, on its loopback
    gateway = AgentGateway(agent_address(world))
    gateway.start()
    try:
        inputs = [
            {"name": "agent_url", "value": world.agent_url},
            {"name": "other_port", "value": str(other.getsockname()[1])},
        ]
        result = sandboxed_script_hook(
            {"config": REACHES, "inputs": inputs, "outputs": []}, tmp_path / "runs", 30, gateway
        )
    finally:
        gateway.stop()
        other.close()
    assert result["deploy_stdout"].splitlines() == [
        "agent API 200",
        "host port: unreachable",
        "other address: unreachable",
    ], result


@needs_sandbox
def test_a_servers_raw_user_data_signals_its_wait_condition_with_curl_from_the_sandbox(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    world.commit({"signalling.yaml": SIGNALLING})
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("signalling", "signalling.yaml")
        assert converge_in_real_time(world, "signalling") is StackStatus.CONVERGED
    finally:
        agents.stop()
    assert json.loads(world.outputs("signalling")["data"]) == {"1": "first", "2": "second"}
