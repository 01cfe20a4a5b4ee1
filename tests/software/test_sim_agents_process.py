"""The simulated cloud's agents in a process of their own, as a real cloud's VMs run apart from it.

Given the agent API listening and a stack whose server boots with SOFTWARE_CONFIG user data, when
the agents' process runs, then the stack converges with the scripts' outputs while no agent runs
in the daemon's process; when the agents' process is killed, it is started again, its agents
remember their runs and execute none again; a deleted server's state goes with it; and the
agents' process dies with the process that started it.
"""

from __future__ import annotations

import logging
import os
import resource
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.sandbox_machine import hostname_of
from reconciler.agent.sandbox_users import users_switchable
from reconciler.daemon.sim_agents_process import AgentsProcess
from reconciler.daemon.sim_hypervisor import CloudHypervisor
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_sim_agents import SCRIPTED, converge_in_real_time, quick_fleet, wait_until

RAN = "simulated agent of server"
REMEMBERED = "(3 run(s) remembered)"


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    world.commit({"scripted.yaml": SCRIPTED})
    yield world
    world.close()


def process_for(world: SoftwareWorld, state_dir: Path) -> AgentsProcess:
    agents = AgentsProcess(lambda: world.cloud, state_dir, **quick_fleet(world))
    agents.start()
    return agents


def messages(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records]


def test_the_agents_run_a_servers_scripts_from_a_process_of_their_own(
    world: SoftwareWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    agents = process_for(world, tmp_path / "agents")
    try:
        world.submit("scripted", "scripted.yaml")
        assert converge_in_real_time(world, "scripted") is StackStatus.CONVERGED
        threads_here = [thread.name for thread in threading.enumerate()]
        assert not [name for name in threads_here if name.startswith("sim-agent-")]
        assert agents.pid not in (None, os.getpid())
    finally:
        agents.stop()
    outputs = world.outputs("scripted")
    assert outputs["greeting"] == f"hello from {outputs['server']}\n"
    assert f"{RAN} {outputs['server']} ran 1 script(s)" in messages(caplog)  # its log is the daemon's


def test_a_killed_agents_process_starts_again_and_runs_nothing_twice(
    world: SoftwareWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    agents = process_for(world, tmp_path / "agents")
    try:
        world.submit("scripted", "scripted.yaml")
        assert converge_in_real_time(world, "scripted") is StackStatus.CONVERGED
        killed = agents.pid
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        wait_until(lambda: agents.pid not in (None, killed), 30)
        wait_until(lambda: any(REMEMBERED in message for message in messages(caplog)), 30)
        after_restart = len(caplog.records)
        threading.Event().wait(1.0)  # several polls
    finally:
        agents.stop()
    assert not any(" ran " in message for message in messages(caplog)[after_restart:])


def test_a_deleted_servers_state_goes_with_it(world: SoftwareWorld, tmp_path: Path) -> None:
    agents = process_for(world, tmp_path / "agents")
    try:
        world.submit("scripted", "scripted.yaml")
        assert converge_in_real_time(world, "scripted") is StackStatus.CONVERGED
        server_dir = tmp_path / "agents" / world.outputs("scripted")["server"]
        assert server_dir.is_dir()
        world.cloud.vanish("servers", server_dir.name)
        wait_until(lambda: not server_dir.exists(), 30)
    finally:
        agents.stop()


HOSTNAMED = """
heat_template_version: 2018-08-31
parameters:
  round: {type: string}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: round}]
      outputs: [{name: host}]
      config: |
        #!/bin/sh
        hostname > "$heat_outputs_path.host"
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      input_values: {round: {get_param: round}}
outputs:
  host: {value: {get_attr: [deployment, host]}}
  server: {value: {get_resource: server}}
"""


class CountingHypervisor(CloudHypervisor):
    """The daemon's hypervisor, counting the machines the agents' process asks it for."""

    asked = 0

    def document(self, server_id: str) -> dict[str, Any] | None:
        self.asked += 1
        return super().document(server_id)


@pytest.mark.skipif(not users_switchable(), reason="machines need the sandbox to switch users")
def test_a_servers_machine_is_asked_again_only_once_what_it_is_made_of_changed(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    hypervisor = CountingHypervisor(lambda: world.cloud, tmp_path / "agents")
    agents = AgentsProcess(hypervisor, tmp_path / "agents", **quick_fleet(world))
    agents.start()

    def deployed(round_: str) -> str:
        world.submit("named", "named.yaml", {"round": round_})
        assert converge_in_real_time(world, "named") is StackStatus.CONVERGED
        return str(world.outputs("named")["host"]).strip()

    try:
        world.commit({"named.yaml": HOSTNAMED})
        first = deployed("1")
        server_id = world.outputs("named")["server"]
        asked = hypervisor.asked
        assert deployed("2") == first  # run again, nothing of its machine changed: not asked
        assert hypervisor.asked == asked

        world.cloud.change("servers", server_id, {"name": "renamed-by-hand"})
        assert deployed("3") == hostname_of("renamed-by-hand")
        assert hypervisor.asked > asked
    finally:
        agents.stop()


STARTER = """
import sys, time
from pathlib import Path
from typing import Any
from reconciler.daemon.sim_agents_process import AgentsProcess
agents = AgentsProcess(lambda: None, Path(sys.argv[1]))
agents.start()
while agents.pid is None:
    time.sleep(0.05)
print(agents.pid, flush=True)
time.sleep(120)
"""


def running(pid: int) -> bool:
    """Whether `pid` runs (a zombie nobody reaped has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_the_agents_process_dies_with_the_process_that_started_it(tmp_path: Path) -> None:
    starter = subprocess.Popen(
        [sys.executable, "-c", STARTER, str(tmp_path / "agents")], stdout=subprocess.PIPE, text=True
    )
    try:
        assert starter.stdout is not None
        agents_pid = int(starter.stdout.readline())
        assert running(agents_pid)
    finally:
        starter.kill()  # as a daemon killed: no chance to stop its agents
        starter.wait()
    wait_until(lambda: not running(agents_pid), 10)


def test_the_agents_process_raises_its_open_files_to_the_hard_limit(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    """Started under systemd's soft limit of 1,024 open files, a fleet of a thousand machines (four
    descriptors each) would run out: the agents' process raises its own soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(soft, 1024), hard))  # as systemd starts a service
    try:
        agents = process_for(world, tmp_path / "agents")
        wait_until(lambda: agents.pid is not None, 30)  # started by a thread of its supervisor
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    try:

        def limit() -> str:
            lines = Path(f"/proc/{agents.pid}/limits").read_text().splitlines()
            return next(line for line in lines if line.startswith("Max open files")).split()[3]

        expected = str(hard if hard != resource.RLIM_INFINITY else 1 << 20)
        wait_until(lambda: limit() == expected, 10)
    finally:
        agents.stop()
