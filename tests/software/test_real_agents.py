"""Real clients against the agent API: curl signalling a wait condition, os-collect-config polling.

The engine converges on a stepped clock while the agent API answers on a real loopback port; the
clients are the real programs a VM runs (`curl`, and `os-collect-config` from the package index,
a pinned test dependency), started as processes.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.heat.server_user_data import metadata_of_user_data
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld

WAIT = """
heat_template_version: 2018-08-31
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
  wait:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      count: 2
      timeout: 600
outputs:
  curl_cli: {value: {get_attr: [handle, curl_cli]}}
  data: {value: {get_attr: [wait, data]}}
"""

DEPLOYED = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: who}]
      config: "#!/bin/sh\\necho hello $who"
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
      user_data: "#!/bin/sh\\necho booted"
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      input_values: {who: world}
outputs:
  stdout: {value: {get_attr: [deployment, deploy_stdout]}}
"""

# A stand-in for heat-config's script hook, run by os-collect-config as its --command: it reads the
# collected metadata from OS_CONFIG_FILES and signals every deployment back as heat-config-notify.
HOOK = """
import json, os, urllib.request
for path in os.environ["OS_CONFIG_FILES"].split(":"):
    with open(path) as handle:
        content = json.load(handle)
    for deployment in content.get("deployments", []) if isinstance(content, dict) else []:
        inputs = {item["name"]: item["value"] for item in deployment["inputs"]}
        body = {"deploy_stdout": "ran " + deployment["name"] + " for " + inputs["who"],
                "deploy_stderr": "", "deploy_status_code": 0}
        request = urllib.request.Request(inputs["deploy_signal_id"], data=json.dumps(body).encode(),
                                         method=inputs["deploy_signal_verb"])
        urllib.request.urlopen(request, timeout=10).read()
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    yield world
    world.close()


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_running_the_handles_curl_cli_completes_the_wait_condition(world: SoftwareWorld) -> None:
    world.commit({"wait.yaml": WAIT})
    world.submit("waiting", "wait.yaml")
    curl_cli = handle_curl_cli(world)
    for number, data in (("1", "first"), ("2", "second")):
        body = json.dumps({"status": "SUCCESS", "reason": "booted", "data": data, "id": number})
        done = subprocess.run(
            f"{curl_cli} --silent --fail --data-binary '{body}'",
            check=False,
            shell=True,
            capture_output=True,
            timeout=30,
        )
        assert done.returncode == 0, done.stderr
        assert world.converge("waiting", within=5)["waiting"].status is (
            StackStatus.CONVERGED if number == "2" else StackStatus.PROGRESSING
        )
    assert json.loads(world.outputs("waiting")["data"]) == {"1": "first", "2": "second"}


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_a_failure_signal_fails_the_wait_condition_with_its_reason(world: SoftwareWorld) -> None:
    world.commit({"wait.yaml": WAIT})
    world.submit("waiting", "wait.yaml")
    curl_cli = handle_curl_cli(world)
    body = json.dumps({"status": "FAILURE", "reason": "no disk"})
    subprocess.run(f"{curl_cli} --silent --fail --data-binary '{body}'", shell=True, check=True, timeout=30)
    report = world.converge("waiting")["waiting"]
    assert report.status is StackStatus.FAILED
    assert "WaitConditionFailure" in report.failures[0].reason and "no disk" in report.failures[0].reason


def handle_curl_cli(world: SoftwareWorld) -> str:
    def attributes() -> dict[str, Any]:
        handle = world.records("waiting").get("handle")
        return {} if handle is None else dict(handle.attributes)

    world.step_until(lambda: "curl_cli" in attributes())
    return str(attributes()["curl_cli"])


def test_a_wait_condition_without_enough_signals_fails_at_its_timeout(world: SoftwareWorld) -> None:
    world.commit({"wait.yaml": WAIT.replace("timeout: 600", "timeout: 30")})
    world.submit("waiting", "wait.yaml")
    report = world.converge("waiting", within=60)["waiting"]
    assert report.status is StackStatus.FAILED
    assert "WaitConditionTimeout: resources.wait: 0 of 2 received" in report.failures[0].reason


def server_user_data(world: SoftwareWorld) -> str:
    (server,) = world.live("servers")
    return str(server["_user_data"])


def test_os_collect_config_polls_the_metadata_url_from_user_data_and_its_signal_completes_the_deployment(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    world.commit({"deployed.yaml": DEPLOYED})
    world.submit("app", "deployed.yaml")
    world.step_until(lambda: world.records("app").get("deployment") is not None)
    metadata = metadata_of_user_data(server_user_data(world))
    assert metadata is not None
    metadata_url = metadata["os-collect-config"]["request"]["metadata_url"]
    hook = tmp_path / "hook.py"
    hook.write_text(textwrap.dedent(HOOK), encoding="utf-8")
    collected = os_collect_config(tmp_path, metadata_url, "--print")
    assert [entry["name"] for entry in collected["request"]["deployments"]] == ["app-config"]
    os_collect_config(tmp_path, metadata_url, "--one-time", "--command", f"{sys.executable} {hook}")
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
    assert world.outputs("app") == {"stdout": "ran app-config for world"}


def os_collect_config(tmp_path: Path, metadata_url: str, *options: str) -> Any:
    program = Path(sys.executable).with_name("os-collect-config")
    argv = [
        str(program),
        "--config-file",
        os.devnull,
        "--cachedir",
        str(tmp_path / "cache"),
        "--backup-cachedir",
        str(tmp_path / "backup-cache"),
        "--request-metadata-url",
        metadata_url,
        *options,
        "request",
    ]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)
    return json.loads(done.stdout) if "--print" in options else None
