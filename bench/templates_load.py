"""Load, validate and build the graph of a generated 50,000-resource template.

    python -m bench.templates_load [--resources 50000] [--format yaml|json] [--default-gc]

The template chains resources in layers: each resource depends on one of the previous layer by
get_attr, on another by depends_on, reads a parameter and joins strings, so the figure covers
parsing, version checks, function checking without a cloud and the dependency graph. For YAML,
libyaml's own parse of the same text (`yaml.load` with `yaml.CSafeLoader`) is timed first in the
same process, and the ratio of the whole load to it printed. The collector is set as the daemon
sets it for a load (`reconciler.daemon.collector`: the process tuned, collections paused during
the load), for both, unless `--default-gc` leaves Python's defaults. Prints wall and CPU time of
each phase, the peak resident memory and the load average before and after.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import yaml

from reconciler.daemon.collector import collector_paused, tune_process
from reconciler.templates import Limits, MemorySource, load_stack

WIDTH = 100  # resources per layer


def generated_template(count: int) -> dict[str, Any]:
    """A template of `count` resources with dependencies between consecutive layers."""
    resources: dict[str, Any] = {}
    for index in range(count):
        properties: dict[str, Any] = {
            "value": {"list_join": ["-", [{"get_param": "prefix"}, f"r{index}"]]},
            "wait_secs": {"get_param": "size"},
        }
        entry: dict[str, Any] = {"type": "OS::Heat::TestResource", "properties": properties}
        if index >= WIDTH:
            properties["entity_name"] = {"get_attr": [f"r{index - WIDTH}", "output"]}
            entry["depends_on"] = [f"r{index - WIDTH + 1 if (index + 1) % WIDTH else index - WIDTH}"]
        resources[f"r{index}"] = entry
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "prefix": {"type": "string", "default": "bench"},
            "size": {"type": "number", "default": 1},
        },
        "resources": resources,
        "outputs": {"last": {"value": {"get_attr": [f"r{count - 1}", "output"]}}},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resources", type=int, default=50_000)
    parser.add_argument("--format", choices=("yaml", "json"), default="yaml")
    parser.add_argument("--default-gc", action="store_true", help="leave the collector as Python sets it")
    arguments = parser.parse_args()
    text = template_text(arguments.resources, arguments.format)
    if not arguments.default_gc:
        tune_process()
    load_before = os.getloadavg()
    libyaml = _libyaml_parse(text, arguments.default_gc) if arguments.format == "yaml" else None
    source = MemorySource({"big.yaml": text})
    limits = Limits(max_template_bytes=len(text) + 1, max_yaml_nodes=50_000_000)
    started, started_cpu = time.perf_counter(), time.process_time()
    with load_collector(arguments.default_gc):
        definition = load_stack(source, "big.yaml", limits=limits)
    loaded = time.perf_counter()
    graph = definition.graph()
    edges = sum(len(requirements) for requirements in graph.values())
    finished, finished_cpu = time.perf_counter(), time.process_time()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    size = f"{len(text) / 2**20:.1f} MiB {arguments.format}"
    print(f"template: {arguments.resources} resources, {edges} dependencies, {size}")
    print(f"collector: {'Python defaults' if arguments.default_gc else 'as the daemon sets it for a load'}")
    print(f"load + validate: {loaded - started:.2f} s; graph: {finished - loaded:.3f} s")
    print(f"total: {finished - started:.2f} s wall, {finished_cpu - started_cpu:.2f} s CPU")
    if libyaml is not None:
        wall, cpu = libyaml
        print(f"libyaml's own parse (yaml.load, CSafeLoader): {wall:.2f} s wall, {cpu:.2f} s CPU")
        print(
            f"whole load / libyaml's parse: {(finished - started) / wall:.2f}x wall,"
            f" {(finished_cpu - started_cpu) / cpu:.2f}x CPU"
        )
    print(f"peak resident memory (whole process, generator included): {peak_mib:.0f} MiB")
    print(f"load average before / after: {_load(load_before)} / {_load(os.getloadavg())}")


def template_text(count: int, form: str) -> str:
    """The generated template of `count` resources as JSON or YAML text."""
    template = generated_template(count)
    if form == "json":
        return json.dumps(template)
    return yaml.dump(template, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False)


def load_collector(default_gc: bool) -> AbstractContextManager[None]:
    """The collector during a load: paused as the daemon pauses it, or left alone."""
    return nullcontext() if default_gc else collector_paused()


def _libyaml_parse(text: str, default_gc: bool) -> tuple[float, float]:
    """Wall and CPU seconds of PyYAML's C loader reading `text`; the value is dropped afterwards."""
    started, started_cpu = time.perf_counter(), time.process_time()
    with load_collector(default_gc):
        value = yaml.load(text, Loader=yaml.CSafeLoader)
    timing = time.perf_counter() - started, time.process_time() - started_cpu
    del value
    gc.collect()
    return timing


def _load(averages: tuple[float, float, float]) -> str:
    return " ".join(f"{average:.2f}" for average in averages)


if __name__ == "__main__":
    main()
