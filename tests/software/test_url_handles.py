"""Scenario: wait condition handles whose reference is their URL, signalled as cfn-signal does.

AWS::CloudFormation::WaitConditionHandle's `Ref` is the URL a VM PUTs CloudFormation's body to;
AWS::CloudFormation::WaitCondition completes with `Data` as Heat builds it. An
OS::Heat::UpdateWaitConditionHandle is made anew at every update of its stack, so what waits on it
waits for fresh signals.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import subprocess
import urllib.error
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld, put

AWS_WAIT = """
heat_template_version: 2013-05-23
parameters:
  marker: {type: string, default: one}
resources:
  WaitHandle:
    type: AWS::CloudFormation::WaitConditionHandle
  WaitCondition:
    type: AWS::CloudFormation::WaitCondition
    properties:
      Handle: {get_resource: WaitHandle}
      Timeout: 600
      Count: 2
  note:
    type: OS::Heat::Value
    properties: {value: {get_param: marker}}
outputs:
  url: {value: {get_resource: WaitHandle}}
  data: {value: {get_attr: [WaitCondition, Data]}}
"""
UPDATE_WAIT = """
heat_template_version: 2018-08-31
parameters:
  marker: {type: string, default: one}
resources:
  handle:
    type: OS::Heat::UpdateWaitConditionHandle
  waiting:
    type: OS::Heat::WaitCondition
    properties:
      handle: {get_resource: handle}
      timeout: 600
  note:
    type: OS::Heat::Value
    properties: {value: {get_param: marker}}
outputs:
  url: {value: {get_resource: handle}}
  data: {value: {get_attr: [waiting, data]}}
"""


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, database_url)
    world.commit({"aws.yaml": AWS_WAIT, "update.yaml": UPDATE_WAIT})
    yield world
    world.close()


def handle_url(world: SoftwareWorld, stack: str, handle: str) -> str:
    world.step_until(lambda: getattr(world.records(stack).get(handle), "physical_id", None) is not None)
    return str(world.records(stack)[handle].physical_id)


def test_cfn_signals_to_the_handles_url_complete_an_aws_wait_condition(world: SoftwareWorld) -> None:
    world.submit("waiting", "aws.yaml")
    url = handle_url(world, "waiting", "WaitHandle")
    assert url.startswith(world.agent_url + "/v1/signal/")
    for number in ("1", "2"):
        body = {"Status": "SUCCESS", "Reason": "booted", "UniqueId": number, "Data": f"node {number}"}
        assert put(url, body) == 200
    assert world.converge("waiting")["waiting"].status is StackStatus.CONVERGED
    assert json.loads(world.outputs("waiting")["data"]) == {"1": "node 1", "2": "node 2"}


def test_a_cfn_failure_fails_the_aws_wait_condition(world: SoftwareWorld) -> None:
    world.submit("waiting", "aws.yaml")
    url = handle_url(world, "waiting", "WaitHandle")
    assert put(url, {"Status": "FAILURE", "Reason": "disk full", "UniqueId": "1", "Data": ""}) == 200
    report = world.converge("waiting")["waiting"]
    assert report.status is StackStatus.FAILED
    assert "WaitConditionFailure: resources.WaitCondition: disk full" in str(report.failures)


def test_an_update_wait_condition_handle_is_new_at_every_update_of_its_stack(world: SoftwareWorld) -> None:
    world.submit("rolling", "update.yaml")
    first = handle_url(world, "rolling", "handle")
    assert put(first, {"status": "SUCCESS", "id": "a", "data": "first"}) == 200
    assert world.converge("rolling")["rolling"].status is StackStatus.CONVERGED

    world.submit("rolling", "update.yaml", {"marker": "two"})
    world.step_until(lambda: world.records("rolling")["handle"].physical_id not in (first, None))
    second = str(world.records("rolling")["handle"].physical_id)
    with contextlib.suppress(urllib.error.HTTPError):  # to the old handle, if still there: not counted
        put(first, {"status": "SUCCESS", "id": "b", "data": "stale"})
    assert put(second, {"status": "SUCCESS", "id": "b", "data": "second"}) == 200
    assert world.converge("rolling")["rolling"].status is StackStatus.CONVERGED
    assert json.loads(world.outputs("rolling")["data"]) == {"b": "second"}
    with pytest.raises(urllib.error.HTTPError, match="404"):  # revoked with its handle
        put(first, {"status": "SUCCESS", "id": "c"})


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_as_the_corpus_scripts_run_it_signals_an_update_wait_condition_handle(
    world: SoftwareWorld,
) -> None:
    """The command of heat-tempest-plugin's volume scenarios: PUT, no Content-Type, CloudFormation keys."""
    world.submit("rolling", "update.yaml")
    url = handle_url(world, "rolling", "handle")
    body = (
        '{"Status": "SUCCESS", "Reason": "Test Complete", "Data": "Volume Data:ok", "UniqueId": "instance1"}'
    )
    command = f"curl --silent --fail -X PUT -H 'Content-Type:' --data-binary '{body}' \"{url}\""
    subprocess.run(command, shell=True, check=True, timeout=30)
    assert world.converge("rolling")["rolling"].status is StackStatus.CONVERGED
    assert json.loads(world.outputs("rolling")["data"]) == {"instance1": "Volume Data:ok"}
