"""Scenario: apply keeps, beside a resource's properties, the digest of what they were resolved from
(so a plan can decide it unchanged without resolving it); a resource reading attributes, or any
resource of a stack with hidden parameters, keeps none, and a plan resolves it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.engine.world import World

TEMPLATE = """
heat_template_version: 2018-08-31
parameters:
  secret: {type: string, default: s3cr3t, hidden: HIDDEN}
resources:
  net: {type: OS::Neutron::Net, properties: {name: front}}
  port: {type: OS::Neutron::Port, properties: {network: {get_resource: net}}}
  token: {type: OS::Heat::RandomString, properties: {length: 8}}
  label: {type: OS::Heat::Value, properties: {value: {get_attr: [token, value]}}}
"""


def _digests(tmp_path: Path, hidden: bool) -> dict[str, bool]:
    """Which records of the converged stack keep an inputs digest."""
    world = World(tmp_path, f"sqlite:///{tmp_path / 'state.sqlite'}")
    try:
        world.commit({"stack.yaml": TEMPLATE.replace("HIDDEN", "true" if hidden else "false")})
        world.submit("front", "stack.yaml")
        world.converge("front")
        return {name: record.inputs_digest is not None for name, record in world.records("front").items()}
    finally:
        world.close()


@pytest.mark.parametrize(
    ("hidden", "kept"),
    [
        (False, {"net": True, "port": True, "token": True, "label": False}),
        (True, {"net": False, "port": False, "token": False, "label": False}),
    ],
    ids=["no hidden parameters", "a hidden parameter"],
)
def test_apply_keeps_a_digest_of_what_each_resource_was_resolved_from(
    tmp_path: Path, hidden: bool, kept: dict[str, bool]
) -> None:
    assert _digests(tmp_path, hidden) == kept
