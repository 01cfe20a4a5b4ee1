"""StackDefinition: immutable views, a stable digest that follows every input, the resolver."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
import yaml

from reconciler.templates import (
    FunctionError,
    MemorySource,
    ResourceDefinition,
    StackDefinition,
    Unresolved,
    load_stack,
)
from reconciler.templates.definition import resource_definition
from reconciler.templates.stack_identity import stack_id

from .snippets import EmptyCloud, ReadyCloud

TOP = {
    "heat_template_version": "2018-08-31",
    "parameters": {"size": {"type": "number", "default": 1}},
    "resources": {
        "web": {"type": "lib/web.yaml", "properties": {"size": {"get_param": "size"}}},
        "config": {"type": "OS::Heat::Value", "properties": {"value": {"get_file": "files/boot.sh"}}},
    },
}
WEB = {"heat_template_version": "2018-08-31", "parameters": {"size": {"type": "number"}}, "resources": {}}


def _load(web: dict[str, Any] = WEB, boot: str = "echo hi\n", size: int | None = None) -> StackDefinition:
    files = {"top.yaml": yaml.safe_dump(TOP), "lib/web.yaml": yaml.safe_dump(web), "files/boot.sh": boot}
    return load_stack(MemorySource(files), "top.yaml", (), {} if size is None else {"size": size})


def test_digest_is_stable_and_follows_every_input() -> None:
    digest = _load().digest()
    assert _load().digest() == digest
    assert _load(size=2).digest() != digest
    assert _load(boot="echo bye\n").digest() != digest
    changed_web = {**WEB, "resources": {"x": {"type": "OS::Heat::None"}}}
    assert _load(web=changed_web).digest() != digest


def test_digest_follows_environments_and_their_order() -> None:
    first = yaml.safe_dump({"parameter_defaults": {"size": 2}})
    second = yaml.safe_dump({"parameter_defaults": {"size": 3}})
    files = {
        "top.yaml": yaml.safe_dump(TOP),
        "lib/web.yaml": yaml.safe_dump(WEB),
        "files/boot.sh": "echo hi\n",
        "one.yaml": first,
        "two.yaml": second,
    }
    source = MemorySource(files)
    in_order = load_stack(source, "top.yaml", ("one.yaml", "two.yaml"))
    reversed_order = load_stack(source, "top.yaml", ("two.yaml", "one.yaml"))
    assert in_order.digest() == load_stack(source, "top.yaml", ("one.yaml", "two.yaml")).digest()
    assert in_order.digest() != reversed_order.digest()
    edited = MemorySource({**files, "two.yaml": yaml.safe_dump({"parameter_defaults": {"size": 4}})})
    assert load_stack(edited, "top.yaml", ("one.yaml", "two.yaml")).digest() != in_order.digest()


def test_input_files_list_everything_read() -> None:
    assert _load().input_files == frozenset({"top.yaml", "lib/web.yaml", "files/boot.sh"})


def test_views_are_read_only() -> None:
    definition = _load()
    with pytest.raises(TypeError):
        definition.parameters["size"] = 3  # type: ignore[index]
    with pytest.raises(TypeError):
        definition.resources["x"] = definition.resources["web"]  # type: ignore[index]


def test_resolve_any_snippet_in_the_template_language() -> None:
    definition = _load()
    snippet = {
        "str_replace": {
            "template": "ID/SIZE",
            "params": {"ID": {"get_resource": "web"}, "SIZE": {"get_param": "size"}},
        }
    }
    assert definition.resolve(snippet, ReadyCloud()) == "id-web/1"
    with pytest.raises(Unresolved) as unresolved:
        definition.resolve(snippet, EmptyCloud())
    assert unresolved.value.resource == "web"
    with pytest.raises(FunctionError, match="not a resource"):
        definition.resolve({"get_resource": "nope"}, ReadyCloud())


def test_get_file_contents_are_resolved_from_what_was_read() -> None:
    assert _load().resolve_properties("config", EmptyCloud()) == {"value": "echo hi\n"}


def test_pseudo_parameters_are_given_by_the_caller_and_fail_with_their_name_otherwise() -> None:
    """No later moment gives a pseudo parameter a value, so waiting for one would never end."""
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "r": {"type": "OS::Heat::Value", "properties": {"value": {"get_param": "OS::stack_id"}}}
        },
    }
    source = MemorySource({"t.yaml": yaml.safe_dump(template)})
    known = load_stack(source, "t.yaml", pseudo_parameters={"OS::stack_id": "stack-1"})
    assert known.resolve_properties("r", EmptyCloud()) == {"value": "stack-1"}
    with pytest.raises(FunctionError, match=r"The Parameter \(OS::stack_id\) has no value"):
        load_stack(source, "t.yaml").resolve_properties("r", ReadyCloud())
    named = load_stack(source, "t.yaml", stack_name="app").resolve_properties("r", ReadyCloud())
    assert named == {"value": stack_id("app")}


def test_a_bound_resource_is_the_dataclass_with_every_field() -> None:
    """Binding makes ResourceDefinitions without the dataclass's __init__: the same object, every field."""
    values: dict[str, Any] = {
        field.name: f"value of {field.name}" for field in dataclasses.fields(ResourceDefinition)
    }
    made = resource_definition(**values)
    assert made == ResourceDefinition(**values)
    assert vars(made) == vars(ResourceDefinition(**values))
