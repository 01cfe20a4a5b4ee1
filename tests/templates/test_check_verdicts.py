"""A resource's clean schema-check verdict, kept with its template's blocks, is used only while
everything the checks read is unchanged: its text, the environment's mapping of its type, the
conditions choosing its branches, the parameters its values are computed from, its type's schema.
A problem found after a kept verdict names its file and line."""

from __future__ import annotations

import pytest

from reconciler.templates import MemoryBlockKeeper, MemorySource, TemplateError, load_stack
from reconciler.templates.check_verdicts import CheckVerdicts
from reconciler.templates.limits import Limits
from reconciler.templates.resource_checks import VERDICTS_WORTH_READING
from schemas.resource_schemas import type_schema

HEAD = "heat_template_version: 2018-08-31\n"
PORT = "    type: {type}\n    properties:\n      network: net0\n"


# enough resources that a load reads the verdicts kept (fewer are checked without reading them)
COUNT = VERDICTS_WORTH_READING + 16


def template(port_body: str = PORT.format(type="OS::Neutron::Port"), *, count: int = COUNT) -> str:
    lines = [
        HEAD,
        "parameters:\n  protocol: {type: string, default: ingress}\n",
        "  wide: {type: boolean, default: false}\n",
        "conditions:\n  is_wide: {get_param: wide}\n",
        "resources:\n",
    ]
    for index in range(count):
        lines.append(f"  v{index}:\n    type: OS::Heat::Value\n    properties:\n      value: v{index}\n")
    lines.append("  port:\n" + port_body)
    return "".join(lines)


def loaded_twice(
    first: dict[str, str], second: dict[str, str], **second_inputs: object
) -> tuple[str, int, str]:
    """The first problem of loading `second` after `first` was loaded clean with the same keeper."""
    keeper = MemoryBlockKeeper()
    environments = ["env.yaml"] if "env.yaml" in first else []
    load_stack(MemorySource(first), "t.yaml", blocks=keeper, environments=environments)
    environments = ["env.yaml"] if "env.yaml" in second else []
    with pytest.raises(TemplateError) as raised:
        load_stack(MemorySource(second), "t.yaml", blocks=keeper, environments=environments, **second_inputs)  # type: ignore[arg-type]
    problem = raised.value.problems[0]
    return problem.file, problem.line, problem.message


def line_of(text: str, line: str) -> int:
    return text.splitlines().index(line) + 1


def test_the_environment_mapping_the_type_elsewhere_checks_the_resource_again() -> None:
    text = template(PORT.format(type="My::Port"))
    first = {"t.yaml": text, "env.yaml": "resource_registry:\n  My::Port: OS::Neutron::Port\n"}
    second = {"t.yaml": text, "env.yaml": "resource_registry:\n  My::Port: OS::Heat::Value\n"}
    file, line, message = loaded_twice(first, second)
    assert (file, line) == ("t.yaml", line_of(text, "      network: net0"))
    assert "Unknown Property network" in message


def test_a_condition_choosing_another_branch_checks_the_resource_again() -> None:
    body = PORT.format(type="OS::Neutron::Port") + "      admin_state_up: {if: [is_wide, 3, true]}\n"
    text = template(body)
    file, line, message = loaded_twice({"t.yaml": text}, {"t.yaml": text}, parameters={"wide": True})
    assert (file, line) == ("t.yaml", line_of(text, "      admin_state_up: {if: [is_wide, 3, true]}"))
    assert "admin_state_up" in message


def test_a_parameter_a_value_is_computed_from_checks_the_resource_again() -> None:
    text = template().replace(
        "  port:\n",
        "  rule:\n    type: OS::Neutron::SecurityGroupRule\n    properties:\n"
        "      security_group: sg\n      direction: {get_param: protocol}\n  port:\n",
    )
    file, line, message = loaded_twice(
        {"t.yaml": text}, {"t.yaml": text}, parameters={"protocol": "not-a-protocol"}
    )
    assert (file, line) == ("t.yaml", line_of(text, "      direction: {get_param: protocol}"))
    assert "direction" in message


def test_a_changed_resource_is_checked_and_its_problem_names_its_line() -> None:
    broken = template(PORT.format(type="OS::Neutron::Port") + "      bogus: 1\n")
    file, line, message = loaded_twice({"t.yaml": template()}, {"t.yaml": broken})
    assert (file, line) == ("t.yaml", line_of(broken, "      bogus: 1"))
    assert "Unknown Property bogus" in message


def test_a_resource_with_a_problem_is_refused_on_every_load() -> None:
    broken = {"t.yaml": template(PORT.format(type="OS::Neutron::Port") + "      bogus: 1\n")}
    keeper = MemoryBlockKeeper()
    for _ in range(2):
        with pytest.raises(TemplateError, match="bogus"):
            load_stack(MemorySource(broken), "t.yaml", blocks=keeper)


def test_a_verdict_key_names_the_block_the_mapped_type_its_schema_and_the_template_version() -> None:
    port, value = type_schema("OS::Neutron::Port"), type_schema("OS::Heat::Value")
    assert port is not None and value is not None
    keeper = MemoryBlockKeeper()
    verdicts = CheckVerdicts(keeper, "t.yaml", Limits(), "2018-08-31")
    key = verdicts.key(b"block", "OS::Neutron::Port", port)
    assert key == CheckVerdicts(keeper, "t.yaml", Limits(), "2018-08-31").key(
        b"block", "OS::Neutron::Port", port
    )
    assert key != verdicts.key(b"other", "OS::Neutron::Port", port)
    assert key != verdicts.key(b"block", "OS::Heat::Value", port)
    assert key != verdicts.key(b"block", "OS::Neutron::Port", value)  # another schema
    assert key != CheckVerdicts(keeper, "t.yaml", Limits(), "2021-04-16").key(
        b"block", "OS::Neutron::Port", port
    )
    assert verdicts.key(None, "OS::Neutron::Port", port) is None  # not parsed by blocks: always checked
