"""Scenario: a secret and the container that names it converge in order, and a secret deleted by
hand is stored again."""

from __future__ import annotations

from pathlib import Path

from reconciler.engine import StackStatus
from tests.engine.world import World

OBSERVE_INTERVAL = 60.0

SECRET_TEMPLATE = """
heat_template_version: 2015-04-30
resources:
  secret:
    type: OS::Barbican::Secret
    properties: {payload: s3cr3t, payload_content_type: text/plain}
outputs:
  secret_ref: {value: {get_resource: secret}}
  payload: {value: {get_attr: [secret, decrypted_payload]}}
"""

CONTAINER_TEMPLATE = """
heat_template_version: 2015-04-30
resources:
  secret:
    type: ./secret.yaml
  container:
    type: OS::Barbican::GenericContainer
    properties:
      name: bundle
      secrets:
        - name: secret1
          ref: {get_attr: [secret, secret_ref]}
outputs:
  container_ref: {value: {get_attr: [container, container_ref]}}
  secret_refs: {value: {get_attr: [container, secret_refs]}}
"""


def test_a_container_names_the_secret_its_nested_stack_stored(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": CONTAINER_TEMPLATE, "secret.yaml": SECRET_TEMPLATE})
    world.submit("vault", "stack.yaml")

    report = world.converge("vault")["vault"]

    assert report.status is StackStatus.CONVERGED, report.failures
    outputs = world.outputs("vault")
    (secret,) = world.live("secrets")
    assert outputs["secret_refs"] == {"secret1": outputs["secret_refs"]["secret1"]}
    assert outputs["secret_refs"]["secret1"].endswith(secret["id"])
    assert outputs["container_ref"].endswith(world.live("secret_containers")[0]["id"])
    world.close()


def test_a_secret_deleted_by_hand_is_stored_again(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": SECRET_TEMPLATE})
    world.submit("vault", "stack.yaml")
    world.converge("vault")
    (first,) = world.live("secrets")

    world.cloud.vanish("secrets", first["id"])
    report = world.pass_time(OBSERVE_INTERVAL + 1, "vault")["vault"]

    assert report.status is StackStatus.CONVERGED, report.failures
    (again,) = world.live("secrets")
    assert again["id"] != first["id"] and again["payload"] == "s3cr3t"
    assert world.outputs("vault")["payload"] == "s3cr3t"
    world.close()


ORDER_TEMPLATE = """
heat_template_version: 2015-04-30
resources:
  order:
    type: OS::Barbican::Order
    properties: {name: test_order, type: key, algorithm: aes, bit_length: 256, mode: cbc}
outputs:
  status: {value: {get_attr: [order, status]}}
  secret_ref: {value: {get_attr: [order, secret_ref]}}
"""


def test_an_order_is_waited_for_until_barbican_has_made_its_key(tmp_path: Path, sqlite_url: str) -> None:
    world = World(tmp_path, sqlite_url, observe_interval=OBSERVE_INTERVAL)
    world.commit({"stack.yaml": ORDER_TEMPLATE})
    world.submit("keys", "stack.yaml")

    report = world.converge("keys")["keys"]

    assert report.status is StackStatus.CONVERGED, report.failures
    outputs = world.outputs("keys")
    (secret,) = world.live("secrets")
    assert outputs["status"] == "ACTIVE" and outputs["secret_ref"].endswith(secret["id"])
    world.close()
