"""Load, validate and build the graph of a generated 50,000-resource template.

    python -m bench.templates_load [--resources 50000] [--format yaml|json]

The template chains resources in layers: each resource depends on one of the previous layer by
get_attr, on another by depends_on, reads a parameter and joins strings, so the figure covers
parsing, version checks, function checking without a cloud and the dependency graph. Prints the
wall time of each phase, the CPU time (steadier when other processes share the cores) of this
process and of the child that builds part of a large YAML document, their peak resident memory,
and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import time
from typing import Any

import yaml

from reconciler.templates import Limits, MemorySource, load_stack

WIDTH = 100  # resources per layer


def generated_template(count: int) -> dict[str, Any]:
    """A template of `count` resources with dependencies between consecutive layers."""
    resources: dict[str, Any] = {}
    for index in range(count):
        properties: dict[str, Any] = {
            "name": {"list_join": ["-", [{"get_param": "prefix"}, f"r{index}"]]},
            "size": {"get_param": "size"},
        }
        entry: dict[str, Any] = {"type": "OS::Heat::Value", "properties": properties}
        if index >= WIDTH:
            properties["value"] = {"get_attr": [f"r{index - WIDTH}", "value"]}
            entry["depends_on"] = [f"r{index - WIDTH + 1 if (index + 1) % WIDTH else index - WIDTH}"]
        resources[f"r{index}"] = entry
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "prefix": {"type": "string", "default": "bench"},
            "size": {"type": "number", "default": 1},
        },
        "resources": resources,
        "outputs": {"last": {"value": {"get_attr": [f"r{count - 1}", "value"]}}},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=50_000)
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
    arguments = parser.parse_args()
    template = generated_template(arguments.resources)
    if arguments.format == "json":
        text = json.dumps(template)
    else:
        text = yaml.dump(template, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)
    source = MemorySource({"big.yaml": text})
    limits = Limits(max_template_bytes=len(text) + 1, max_yaml_nodes=50_000_000)
    load_before = os.getloadavg()
    started, started_cpu, started_child_cpu = time.perf_counter(), time.process_time(), _children_cpu()
    definition = load_stack(source, "big.yaml", limits=limits)
    loaded = time.perf_counter()
    graph = definition.graph()
    edges = sum(len(requirements) for requirements in graph.values())
    finished, finished_cpu, finished_child_cpu = time.perf_counter(), time.process_time(), _children_cpu()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_peak_mib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    size = f"{len(text) / 2**20:.1f} MiB {arguments.format}"
    print(f"template: {arguments.resources} resources, {edges} dependencies, {size}")
    print(f"load + validate: {loaded - started:.2f} s; graph: {finished - loaded:.3f} s")
    print(
        f"total: {finished - started:.2f} s wall, {finished_cpu - started_cpu:.2f} s CPU of this process"
        f" + {finished_child_cpu - started_child_cpu:.2f} s of its child"
    )
    print(f"peak resident memory (whole process, generator included): {peak_mib:.0f} MiB")
    if child_peak_mib:
        print(
            f"peak resident memory of the child (pages shared with this process included):"
            f" {child_peak_mib:.0f} MiB"
        )
    print(f"load average before / after: {_load(load_before)} / {_load(os.getloadavg())}")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _load(averages: tuple[float, float, float]) -> str:
    return " ".join(f"{average:.2f}" for average in averages)


if __name__ == "__main__":
    main()
