"""The agent API's HTTP contract: conditional polls, where tokens go, and what bad input gets."""

from __future__ import annotations

import http.client
import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.heat.server_user_data import metadata_of_user_data
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_real_agents import DEPLOYED, WAIT


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, database_url)
    world.commit({"deployed.yaml": DEPLOYED, "wait.yaml": WAIT})
    yield world
    world.close()


def request(
    url: str, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None
) -> http.client.HTTPResponse:
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    connection.request(method, parts.path, body=body, headers=headers or {})
    answer = connection.getresponse()
    answer.read()
    return answer


def announced_body(url: str, length: int, token: str) -> int:
    """The status of a POST announcing a body of `length` bytes, answered before it is sent."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    connection.putrequest("POST", parts.path)
    connection.putheader("Content-Length", str(length))
    connection.putheader("X-Auth-Token", token)
    connection.endheaders()
    return connection.getresponse().status


def metadata_url(world: SoftwareWorld) -> str:
    world.submit("app", "deployed.yaml")
    world.step_until(lambda: world.records("app").get("deployment") is not None)
    (server,) = world.live("servers")
    metadata = metadata_of_user_data(str(server["_user_data"]))
    assert metadata is not None
    return str(metadata["os-collect-config"]["request"]["metadata_url"])


def test_metadata_answers_head_and_get_with_validators_and_304_when_unchanged(world: SoftwareWorld) -> None:
    url = metadata_url(world)
    head = request(url, "HEAD")
    assert head.status == 200 and head.getheader("Last-Modified")
    got = request(url)
    etag, modified = got.getheader("ETag"), got.getheader("Last-Modified")
    assert got.status == 200 and etag and modified == head.getheader("Last-Modified")
    assert request(url, headers={"If-None-Match": str(etag)}).status == 304
    assert request(url, headers={"If-Modified-Since": str(modified)}).status == 304


def test_metadata_changes_its_validators_when_a_deployment_runs_again(world: SoftwareWorld) -> None:
    url = metadata_url(world)
    (first,) = world.server_entries(world.records("app")["server"].physical_id)
    world.signal_deployment(first, {"deploy_status_code": 0})
    before = request(url)
    world.commit({"deployed.yaml": DEPLOYED.replace("who: world", "who: everyone")})
    world.submit("app", "deployed.yaml")
    world.step_until(
        lambda: request(url, headers={"If-None-Match": str(before.getheader("ETag"))}).status == 200
    )
    after = request(url)
    assert after.getheader("Last-Modified") != before.getheader("Last-Modified")


def test_a_changed_or_unknown_token_is_a_404_like_any_unknown_path(world: SoftwareWorld) -> None:
    url = metadata_url(world)
    assert request(url[:-1] + ("A" if url[-1] != "A" else "B")).status == 404
    assert request(world.agent_url + "/v1/nothing").status == 404
    assert request(world.agent_url + "/v1/signal", "POST", b"{}", {"X-Auth-Token": "forged"}).status == 404


def test_bodies_over_a_mebibyte_are_413_and_bodies_not_json_are_400(world: SoftwareWorld) -> None:
    world.submit("waiting", "wait.yaml")
    world.step_until(lambda: "token" in getattr(world.records("waiting").get("handle"), "attributes", {}))
    token = world.records("waiting")["handle"].attributes["token"]
    endpoint = world.agent_url + "/v1/signal"
    assert announced_body(endpoint, (1 << 20) + 1, token) == 413
    assert request(endpoint, "POST", b"not json", {"X-Auth-Token": token}).status == 400
    assert request(endpoint, "POST", b'{"status": "MAYBE"}', {"X-Auth-Token": token}).status == 400


def test_a_repeated_handle_signal_counts_once_and_the_token_may_be_in_the_url(world: SoftwareWorld) -> None:
    world.submit("waiting", "wait.yaml")
    world.step_until(lambda: "token" in getattr(world.records("waiting").get("handle"), "attributes", {}))
    token = world.records("waiting")["handle"].attributes["token"]
    signal = json.dumps({"id": "1", "data": "once"}).encode()
    for _ in range(3):
        assert request(f"{world.agent_url}/v1/signal/{token}", "POST", signal).status == 200
    assert world.converge("waiting", within=5)["waiting"].status is StackStatus.PROGRESSING
    assert request(f"{world.agent_url}/v1/signal/{token}", "POST", b"").status == 200
    assert world.converge("waiting")["waiting"].status is StackStatus.CONVERGED
    assert json.loads(world.outputs("waiting")["data"]) == {"1": "once", "2": None}


def test_a_signal_from_a_run_that_was_superseded_is_refused(world: SoftwareWorld) -> None:
    metadata_url(world)
    server = world.records("app")["server"].physical_id
    (first,) = world.server_entries(server)
    world.signal_deployment(first, {"deploy_status_code": 0})
    world.converge("app")
    world.commit({"deployed.yaml": DEPLOYED.replace("who: world", "who: everyone")})
    world.submit("app", "deployed.yaml")
    world.step_until(lambda: world.server_entries(server)[0]["id"] != first["id"])
    old_url = next(item["value"] for item in first["inputs"] if item["name"] == "deploy_signal_id")
    assert request(old_url, "PUT", b'{"deploy_status_code": 0}').status == 404
    assert world.converge("app", within=5)["app"].status is StackStatus.PROGRESSING
