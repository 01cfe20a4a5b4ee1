"""The samples repository loads through the public contract: config, order, stacks, nesting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reconciler.templates import (
    DirectorySource,
    StackOutputRef,
    Unresolved,
    load_repository_config,
    load_stack,
    stack_order,
)

SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"


class ReadyCloud:
    """Every resource is ready: ids and attributes are derived from the names."""

    def physical_id(self, resource: str) -> str:
        return f"id-{resource}"

    def attribute(self, resource: str, name: str) -> Any:
        return f"{resource}.{name}"


class EmptyCloud:
    """Nothing is ready."""

    def physical_id(self, resource: str) -> str:
        raise Unresolved(resource)

    def attribute(self, resource: str, name: str) -> Any:
        raise Unresolved(resource)


def test_repository_config_has_defaults_merged_and_wiring_typed() -> None:
    config = load_repository_config(DirectorySource(SAMPLES))

    assert config.branch == "main"
    assert config.stacks["network"].cloud == "sim"
    assert config.stacks["app"].environment == ("environments/common.yaml", "environments/prod.yaml")
    assert config.stacks["app"].parameters["net_id"] == StackOutputRef("network", "net_id")
    assert stack_order(config) == [["network"], ["app"]]


def test_network_stack_graph_follows_references() -> None:
    definition = load_stack(
        DirectorySource(SAMPLES),
        "stacks/network/template.yaml",
        ["environments/common.yaml"],
        {"cidr": "10.0.0.0/24"},
    )

    assert definition.graph()["router_interface"] == frozenset({"router", "subnet"})
    assert definition.parameters["dns_nameservers"] == ["8.8.8.8", "8.8.4.4"]
    assert definition.resolve_output("net_id", ReadyCloud()) == "id-net"
    assert definition.input_files == frozenset({"stacks/network/template.yaml", "environments/common.yaml"})


def test_app_stack_group_expands_to_template_resources_lazily() -> None:
    given = {"net_id": "n", "subnet_id": "s", "security_group": "g"}
    definition = load_stack(
        DirectorySource(SAMPLES),
        "stacks/app/template.yaml",
        ["environments/common.yaml", "environments/prod.yaml"],
        given,
    )

    assert definition.parameters["node_count"] == 2  # from prod.yaml
    assert definition.hidden_parameters == frozenset({"admin_password"})
    assert definition.graph()["nodes"] == frozenset({"key", "db_password"})
    assert "stacks/app/node.yaml" in definition.input_files
    try:
        definition.resolve_properties("nodes", EmptyCloud())
    except Unresolved as unresolved:
        assert unresolved.resource in {"key", "db_password"}
    else:
        raise AssertionError("properties needing unready resources must not resolve")

    group = definition.nested("nodes", definition.resolve_properties("nodes", ReadyCloud()))
    assert group is not None
    assert list(group.resources) == ["0", "1"]
    member = group.resources["1"]
    assert (member.nested_kind, member.template_file) == ("template", "stacks/app/node.yaml")
    assert member.properties["name"] == "app-1"

    node = group.nested("1", group.resolve_properties("1", ReadyCloud()))
    assert node is not None
    assert node.graph()["data_attachment"] == frozenset({"server", "data"})
    assert node.parameters["volume_size"] == 2
