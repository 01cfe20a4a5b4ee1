"""A ResourceGroup of 1,000,000 members: validated and expanded without materializing members.

    python -m bench.templates_group [--members 1000000]

Loads a stack whose group's member type is a template resource, then builds the group's nested
definition, reads its last member and that member's own nested stack. Prints each step's time and
the memory traced while doing it (tracemalloc), so "lazy" is a number, not a claim.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

import yaml

from reconciler.templates import MemorySource, StackDefinition, Unresolved, load_stack

T = TypeVar("T")

MEMBER = {
    "heat_template_version": "2018-08-31",
    "parameters": {"name": {"type": "string"}},
    "resources": {
        "port": {"type": "OS::Neutron::Port"},
        "server": {
            "type": "OS::Nova::Server",
            "properties": {"name": {"get_param": "name"}, "port": {"get_resource": "port"}},
        },
    },
    "outputs": {"ip": {"value": {"get_attr": ["server", "first_address"]}}},
}


def _top(members: int) -> dict[str, object]:
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"count": {"type": "number", "default": members}},
        "resources": {
            "nodes": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": {"get_param": "count"},
                    "resource_def": {"type": "member.yaml", "properties": {"name": "node-%index%"}},
                },
            }
        },
        "outputs": {"addresses": {"value": {"get_attr": ["nodes", "ip"]}}},
    }


class GroupReady:
    """The group resource is ready; its members are not."""

    def physical_id(self, resource: str) -> str:
        return f"id-{resource}"

    def attribute(self, resource: str, name: str) -> object:
        raise Unresolved(resource)


def _step(label: str, action: Callable[[], T]) -> T:
    tracemalloc.reset_peak()
    started = time.perf_counter()
    result = action()
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    print(f"{label}: {elapsed * 1000:.1f} ms, peak traced memory {peak / 2**20:.2f} MiB")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--members", type=int, default=1_000_000)
    arguments = parser.parse_args()
    files = MemorySource(
        {"top.yaml": yaml.safe_dump(_top(arguments.members)), "member.yaml": yaml.safe_dump(MEMBER)}
    )
    tracemalloc.start()
    definition = _step(
        "load + validate (member template checked once)", lambda: load_stack(files, "top.yaml")
    )
    properties = definition.resolve_properties("nodes", GroupReady())
    nested_group = _step("nested group definition", lambda: definition.nested("nodes", properties))
    assert nested_group is not None
    group: StackDefinition = nested_group
    count = _step("count members", lambda: len(group.resources))
    last = str(arguments.members - 1)
    member = _step(f"member {last}", lambda: group.resources[last])
    nested = _step(
        f"member {last}'s nested stack",
        lambda: group.nested(last, group.resolve_properties(last, GroupReady())),
    )
    tracemalloc.stop()
    print(f"members: {count}; member {last}: {member.properties}; its stack: {nested}")


if __name__ == "__main__":
    main()
