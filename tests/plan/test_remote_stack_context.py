"""OS::Heat::Stack's `context` is honoured or refused, never ignored.

A nested stack is built on its parent's cloud. A `context.region_name` naming a region the cloud does
not have, or a `context.credential_secret_id`, is refused by plan and apply before anything is built,
naming the resource, the key and why; a `context` naming the cloud's own region converges as any
nested stack.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.plan.cli_repos import OneStackRepository

REMOTE = """heat_template_version: 2018-08-31
parameters:
  region: {{type: string, default: {region}}}
resources:
  net:
    type: OS::Neutron::Net
  network_stack:
    type: OS::Heat::Stack
    properties:
      context: {context}
      template: |
        heat_template_version: 2018-08-31
        resources:
          router: {{type: OS::Neutron::Router}}
        outputs:
          router: {{value: {{get_resource: router}}}}
outputs:
  router: {{value: {{get_attr: [network_stack, outputs, router]}}}}
"""


def _remote(region: str, context: str = "{region_name: {get_param: region}}") -> str:
    return REMOTE.format(region=region, context=context)


def test_a_remote_stack_in_another_region_is_refused_by_plan_and_apply_with_nothing_built(
    tmp_path: Path,
) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": _remote("RegionTwo")})

    planned = repository.run("plan")
    applied = repository.apply()

    reason = (
        "OS::Heat::Stack network_stack: context.region_name 'RegionTwo' is not a region of cloud "
        "'sim' (it has RegionOne)"
    )
    assert planned.exit_code == 1
    for shown in (planned.output, applied.output):
        assert "stack.yaml:10" in shown
        assert reason in shown
    assert applied.exit_code == 1
    assert "demo: INVALID" in applied.output and "(created 0," in applied.output  # not even the net


def test_a_credential_secret_is_refused_without_showing_it(tmp_path: Path) -> None:
    context = "{credential_secret_id: 0b5bb2b4-6e58-4c4e-9a3c-7d3f5f0f0e11}"
    repository = OneStackRepository(tmp_path, {"stack.yaml": _remote("RegionOne", context)})

    applied = repository.apply()

    assert applied.exit_code == 1
    assert "OS::Heat::Stack network_stack: context.credential_secret_id is not served" in applied.output
    assert "0b5bb2b4" not in applied.output
    assert "(created 0," in applied.output


def test_a_remote_stack_in_the_clouds_own_region_converges_as_a_nested_stack(tmp_path: Path) -> None:
    repository = OneStackRepository(tmp_path, {"stack.yaml": _remote("RegionOne")})

    planned = repository.plan()
    applied = repository.apply()

    assert planned.exit_code == 2, planned.output
    (stack,) = json.loads(planned.output)["stacks"]
    assert sorted(entry["resource"] for entry in stack["plan"]["create"]) == ["net", "network_stack"]
    assert applied.exit_code == 0, applied.output
    assert repository.plan().exit_code == 0
