"""Scenario (issue: "FAILED is a dead end"): one transient 403 leaves a group member FAILED.

Given the daemon on a real git repository and a group of three servers on a simulated cloud over
HTTP (openstacksdk), and one create refused with a 403; then the stack is FAILED with the cloud's
words and the time of the next try (in the note, in `GET /status`, in the metrics), and it stays
so: nothing is retried for minutes. When an empty commit lands, or the template is edited, or
the group's count changes, or the daemon gets SIGHUP, or `reconciler retry` is run against its
database; then the member is created and the stack converges.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from providers.simulated.faults import CallFault
from reconciler.cli.main import cli
from reconciler.engine import StackStatus
from tests.daemon.gitops_world import notes_on
from tests.daemon.http_cloud_world import HttpCloudWorld, http_cloud_world, repository_config

TEMPLATE = "stacks/app.yaml"


def group(count: int, extra: str = "") -> str:
    return f"""heat_template_version: 2018-08-31
resources:
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {count}
      resource_def:
        type: OS::Nova::Server
        properties:
          name: node-%index%
          image: cirros-0.6.2-x86_64-disk
          flavor: m1.small
{extra}outputs:
  ids: {{value: {{get_attr: [nodes, refs]}}}}
"""


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[HttpCloudWorld]:
    with http_cloud_world(tmp_path, monkeypatch) as world:
        yield world


def given_a_member_failed_by_one_403(world: HttpCloudWorld) -> str:
    first = world.commit({"reconciler.yaml": repository_config({"app": TEMPLATE}), TEMPLATE: group(3)})
    world.sim.cloud.faults.fail_next(CallFault.FORBIDDEN, operation="create", collection="servers")
    world.start_daemon()
    world.follow()
    assert world.converge_until(lambda: world.report("app").status is StackStatus.FAILED)
    return first


def empty_commit(world: HttpCloudWorld) -> None:
    world.empty_commit("an empty commit")
    world.follow()


def template_edit(world: HttpCloudWorld) -> None:
    extra = "  marker:\n    type: OS::Heat::None\n"
    world.commit({TEMPLATE: group(3, extra)}, "an edit that leaves the group as it is")
    world.follow()


def count_change(world: HttpCloudWorld) -> None:
    world.commit({TEMPLATE: group(4)}, "four nodes")
    world.follow()


def sighup(world: HttpCloudWorld) -> None:
    world.running().daemon.service.on_reload()  # what the main thread runs on SIGHUP
    world.follow()


def retry_command(world: HttpCloudWorld) -> None:
    args = ["retry", "app", "--database", world.database_url, "--repo", str(world.root / "repo")]
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert re.search(r"^app/nodes/\d: FAILED: .*Policy does not allow", result.output, re.MULTILINE)


TRIGGERS: dict[str, Callable[[HttpCloudWorld], None]] = {
    "empty commit": empty_commit,
    "template edit": template_edit,
    "count change": count_change,
    "SIGHUP": sighup,
    "reconciler retry": retry_command,
}


@pytest.mark.parametrize("trigger", TRIGGERS)
def test_a_member_failed_by_one_403_is_retried(world: HttpCloudWorld, trigger: str) -> None:
    given_a_member_failed_by_one_403(world)
    assert not world.converge_until(lambda: len(world.live("servers")) == 3, seconds=1.0)  # it waits

    TRIGGERS[trigger](world)

    expected = 4 if trigger == "count change" else 3
    assert world.converge_until(
        lambda: world.report("app").status is StackStatus.CONVERGED and len(world.live("servers")) == expected
    ), world.report("app").failures
    names = sorted(str(server["name"]) for server in world.live("servers"))
    assert names == [f"node-{index}" for index in range(expected)]


def next_try(world: HttpCloudWorld) -> float | None:
    report = world.report("app")
    return report.failures[0].next_try if report.status is StackStatus.FAILED and report.failures else None


def test_the_issue_s_sequence_each_commit_tries_again_until_the_cloud_allows_it(
    world: HttpCloudWorld,
) -> None:
    """The refusal holds for the first try and for the retries an empty commit and a template
    edit make (each one a try: the next try moves later); the count change's retry is allowed."""
    world.commit({"reconciler.yaml": repository_config({"app": TEMPLATE}), TEMPLATE: group(3)})
    forbidden = world.sim.cloud.faults
    forbidden.fail_next(CallFault.FORBIDDEN, operation="create", collection="servers")
    world.start_daemon()
    world.follow()
    assert world.converge_until(lambda: next_try(world) is not None)
    first = next_try(world)
    assert first is not None

    forbidden.fail_next(CallFault.FORBIDDEN, operation="create", collection="servers")
    empty_commit(world)
    assert world.converge_until(lambda: (next_try(world) or 0) > first)
    second = next_try(world)
    assert second is not None and len(world.live("servers")) == 2

    forbidden.fail_next(CallFault.FORBIDDEN, operation="create", collection="servers")
    template_edit(world)
    assert world.converge_until(lambda: (next_try(world) or 0) > second)
    assert len(world.live("servers")) == 2

    count_change(world)
    assert world.converge_until(
        lambda: world.report("app").status is StackStatus.CONVERGED and len(world.live("servers")) == 4
    ), world.report("app").failures


def test_while_it_waits_the_reason_and_next_try_are_in_the_note_status_and_metrics(
    world: HttpCloudWorld,
) -> None:
    first = given_a_member_failed_by_one_403(world)
    daemon = world.running().daemon

    daemon.gitops.publish()
    (failure,) = notes_on(world.repo, first)["app"].failures
    assert "Policy does not allow" in failure and "next try at" in failure
    daemon.http.start()
    host, port = daemon.http.address
    with urllib.request.urlopen(f"http://{host}:{port}/status", timeout=5) as answer:
        status = json.load(answer)
    (app,) = [stack for stack in status["stacks"] if stack["stack"] == "app"]
    (reported,) = app["failures"]
    assert app["status"] == "FAILED"
    assert reported["resource"] == "nodes" and "Policy does not allow" in reported["reason"]
    assert reported["next_try"].endswith("Z")
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=5) as answer:
        metrics = answer.read().decode()
    assert 'reconciler_next_retry_timestamp_seconds{stack="app"}' in metrics


def test_retry_refuses_a_stack_or_resource_it_does_not_know(world: HttpCloudWorld) -> None:
    given_a_member_failed_by_one_403(world)
    runner = CliRunner()

    unknown_stack = runner.invoke(cli, ["retry", "nothing", "--database", world.database_url])
    unknown_resource = runner.invoke(cli, ["retry", "app", "web", "--database", world.database_url])
    undeclared = runner.invoke(
        cli, ["retry", "other", "--database", world.database_url, "--repo", str(world.root / "repo")]
    )

    assert unknown_stack.exit_code == 1 and "no stack named 'nothing'" in unknown_stack.output
    assert unknown_resource.exit_code == 1 and "stack 'app' has no resource 'web'" in unknown_resource.output
    assert undeclared.exit_code == 1 and "declares no stack 'other'" in undeclared.output
    assert world.running().daemon.store.requested_retries(range(64)) == []
