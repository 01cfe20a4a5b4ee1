"""Scenario: deployments waiting for their signals are observed at the signals' pace.

The engine polls all the deployments waiting ever more slowly, and observes one by itself as soon
as it is told that its signal was kept. A signal kept before its deployment waits (the agent
answered while the create call was still on its way back) is observed at once too, not at the
next poll of them all.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from providers.heat.software_provider import SoftwareProvider
from providers.interface import Deliver, LiveResource, Marker
from reconciler.engine import StackStatus
from tests.engine.world import TEST_SETTINGS
from tests.software.software_world import SoftwareWorld

TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties: {group: script, config: "#!/bin/sh\\ntrue"}
  server:
    type: OS::Nova::Server
    properties: {image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}
  slow:
    type: OS::Heat::SoftwareDeployment
    properties: {config: {get_resource: config}, server: {get_resource: server}}
  gate:
    type: OS::Heat::TestResource
    properties: {value: open, wait_secs: 40}
  early:
    type: OS::Heat::SoftwareDeployment
    depends_on: gate
    properties: {config: {get_resource: config}, server: {get_resource: server}}
"""
PACE = 120.0  # the slowest poll of all the deployments waiting: far longer than this test's passes


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(
        tmp_path, database_url, settings=dataclasses.replace(TEST_SETTINGS, signal_poll=PACE)
    )
    world.commit({"app.yaml": TEMPLATE})
    yield world
    world.close()


def entry_of(world: SoftwareWorld, resource: str) -> dict[str, Any]:
    server = world.records("app")["server"].physical_id
    (entry,) = [
        entry
        for entry in world.server_entries(server)
        if {"deploy_resource_name": resource}.items()
        <= {i["name"]: i.get("value") for i in entry["inputs"]}.items()
    ]
    return entry


def test_a_signal_kept_before_its_deployment_waits_completes_it_at_once(
    world: SoftwareWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Given a deployment waiting long enough for the polls of all of them to be slow; when another
    deployment's agent answers before its create call is back; then it completes within two
    passes, not at the next poll of them all."""
    create, create_later = SoftwareProvider.create, SoftwareProvider.create_later

    def answer(marker: Marker) -> None:
        if marker.resource == "early":
            assert world.signal_deployment(entry_of(world, "early"), {"deploy_status_code": 0}) == 200

    def answering_at_once(
        provider: SoftwareProvider, type_name: str, properties: Mapping[str, Any], marker: Marker
    ) -> LiveResource:
        created = create(provider, type_name, properties, marker)
        answer(marker)
        return created

    def answering_before_the_create_is(
        provider: SoftwareProvider,
        type_name: str,
        properties: Mapping[str, Any],
        marker: Marker,
        deliver: Deliver,
    ) -> LiveResource | None:
        """On a call pool's thread: the deployment is written, then its agent answers, then the
        create is answered."""

        def answered_then(outcome: Callable[[], LiveResource]) -> None:
            answer(marker)
            deliver(outcome)

        created = create_later(provider, type_name, properties, marker, answered_then)
        if created is not None:
            answer(marker)
        return created

    monkeypatch.setattr(SoftwareProvider, "create", answering_at_once)
    monkeypatch.setattr(SoftwareProvider, "create_later", answering_before_the_create_is)
    world.submit("app", "app.yaml")
    world.step_until(lambda: world.records("app").get("early") is not None, passes=60)
    created_at = world.clock.now()

    world.step_until(lambda: world.records("app")["early"].status == "READY", passes=10)

    assert world.clock.now() - created_at <= 2.0
    assert world.records("app")["slow"].status != "READY"  # still waiting: its polls are slow
    world.signal_deployment(entry_of(world, "slow"), {"deploy_status_code": 0})
    assert world.converge("app")["app"].status is StackStatus.CONVERGED
