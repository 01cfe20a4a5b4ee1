"""`reconciler agent`: heat-config's script hook contract, run once per input set, across restarts."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from providers.heat.server_user_data import metadata_of_user_data
from reconciler.agent.hooks import TIMED_OUT, script_hook
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld

SCRIPTED = """
heat_template_version: 2018-08-31
parameters:
  who: {type: string, default: world}
  code: {type: number, default: 0}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: who}, {name: code, type: Number}]
      outputs: [{name: greeting}]
      config: |
        #!/bin/sh
        echo "hello $who" > "$heat_outputs_path.greeting"
        echo "ran for $who, action $deploy_action"
        echo "warning: $who" >&2
        exit $code
  other:
    type: OS::Heat::SoftwareConfig
    properties: {group: puppet, config: "class {}"}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      input_values: {who: {get_param: who}, code: {get_param: code}}
  puppet:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: other}
      server: {get_resource: server}
outputs:
  greeting: {value: {get_attr: [deployment, greeting]}}
  stdout: {value: {get_attr: [deployment, deploy_stdout]}}
  puppet: {value: {get_attr: [puppet, deploy_stdout]}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    world.commit({"scripted.yaml": SCRIPTED})
    yield world
    world.close()


def metadata_url(world: SoftwareWorld) -> str:
    def published() -> bool:
        server = world.records("scripted").get("server")
        return bool(server and server.physical_id and len(world.server_entries(server.physical_id)) == 2)

    world.step_until(published)
    (server,) = world.live("servers")
    metadata = metadata_of_user_data(str(server["_user_data"]))
    assert metadata is not None
    return str(metadata["os-collect-config"]["request"]["metadata_url"])


def agent_once(url: str, state_dir: Path) -> str:
    argv = [sys.executable, "-m", "reconciler.cli.main", "agent", "--metadata-url", url, "--once"]
    done = subprocess.run(
        [*argv, "--state-dir", str(state_dir)], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip()


def test_the_agent_runs_the_script_with_its_inputs_and_its_outputs_become_attributes(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    world.submit("scripted", "scripted.yaml")
    assert agent_once(metadata_url(world), tmp_path / "agent") == "ran 2 deployment(s)"
    assert world.converge("scripted")["scripted"].status is StackStatus.CONVERGED
    outputs = world.outputs("scripted")
    assert outputs["greeting"] == "hello world\n"
    assert outputs["stdout"] == "ran for world, action CREATE\n"
    assert "no hook for group 'puppet'" in outputs["puppet"]


def test_a_restarted_agent_never_runs_a_script_twice_for_the_same_inputs(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    world.submit("scripted", "scripted.yaml")
    url = metadata_url(world)
    assert agent_once(url, tmp_path / "agent") == "ran 2 deployment(s)"
    assert agent_once(url, tmp_path / "agent") == "ran 0 deployment(s)"
    world.converge("scripted")
    world.submit("scripted", "scripted.yaml", {"who": "everyone"})
    world.step_until(lambda: agent_once(url, tmp_path / "agent") == "ran 1 deployment(s)")
    assert world.converge("scripted")["scripted"].status is StackStatus.CONVERGED
    assert world.outputs("scripted")["stdout"] == "ran for everyone, action UPDATE\n"


def test_a_script_exiting_1_fails_the_deployment_with_its_stderr_in_the_reason(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    world.submit("scripted", "scripted.yaml", {"code": 1})
    agent_once(metadata_url(world), tmp_path / "agent")
    report = world.converge("scripted")["scripted"]
    assert report.status is StackStatus.FAILED
    (failure,) = report.failures
    assert "non-zero status code: 1" in failure.reason and "warning: world" in failure.reason


def test_a_script_without_a_shebang_runs_under_sh_and_one_past_its_time_limit_is_stopped(
    tmp_path: Path,
) -> None:
    plain = {"config": 'echo "plain $who"', "inputs": [{"name": "who", "value": "text"}], "outputs": []}
    assert script_hook(plain, tmp_path, 30)["deploy_stdout"] == "plain text\n"
    slow = {"config": "#!/bin/sh\nsleep 30", "inputs": [], "outputs": []}
    assert script_hook(slow, tmp_path, 0.5)["deploy_status_code"] == TIMED_OUT


def test_scripts_started_together_from_many_threads_all_run(tmp_path: Path) -> None:
    # each thread writes its script while the others start theirs: a started child holding a copy
    # of another script's writing descriptor would make that script "Text file busy"
    def run(index: int) -> dict[str, object]:
        config = {"config": f"#!/bin/sh\necho {index}\n", "inputs": [], "outputs": []}
        return script_hook(config, tmp_path / str(index), 30)

    with ThreadPoolExecutor(32) as pool:
        results = list(pool.map(run, range(200)))
    assert [result["deploy_stdout"] for result in results] == [f"{index}\n" for index in range(200)]
    assert {result["deploy_status_code"] for result in results} == {0}
