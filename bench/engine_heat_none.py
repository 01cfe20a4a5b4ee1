"""OS::Heat::None at Heat's own benchmark sizes, and a ResourceGroup of a million of them.

Heat's engine, in-process on SQLite on this machine, took 15.5 s to create and 15.7 s to update a
stack of 1,000 OS::Heat::None (294 s / 749 s at 5,000). The same shapes here: a flat template of N
OS::Heat::None, created, then updated (a property of every one changed); and a ResourceGroup of N
OS::Heat::None members, created (a nested stack of its own). Real clock, SQLite, peak memory.

    python -m bench.engine_heat_none --flat 1000 --flat 5000 --group 1000000
"""

from __future__ import annotations

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import DesiredGeneration, Engine, Policy, SoleWorkerLeases
from reconciler.templates import DirectorySource, Limits, load_stack
from state.store import open_store
from timekeeping import SystemClock

LIMITS = Limits(max_template_bytes=1 << 30, max_yaml_nodes=50_000_000)


def flat(count: int, revision: int) -> str:
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for index in range(count):
        lines.append(f"  none{index}:\n    type: OS::Heat::None\n    properties: {{revision: {revision}}}")
    return "\n".join(lines) + "\n"


def group(count: int) -> str:
    return (
        "heat_template_version: 2018-08-31\nresources:\n  group:\n    type: OS::Heat::ResourceGroup\n"
        f"    properties:\n      count: {count}\n      resource_def: {{type: OS::Heat::None}}\n"
    )


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Bench:
    def __init__(self) -> None:
        self.workdir = Path(tempfile.mkdtemp(prefix="bench-none-"))
        self.clock = SystemClock()
        self.store = open_store(f"sqlite:///{self.workdir / 'state.sqlite'}", clock=self.clock)
        leases = SoleWorkerLeases(self.store, "bench", self.clock)
        for shard in range(self.store.settings.shard_count):
            leases.want(shard)
        clouds = CloudRoot(self.clock, sim_path=self.workdir / "sim.json")
        self.engine = Engine(self.store, clouds, self.clock, "bench", leases=leases, sleeper=self.clock)
        self.policy = Policy("sim", True, True, 3600.0)

    def converge(self, stack: str, text: str, commit: str) -> tuple[float, float, str]:
        """(seconds to load the template, seconds from submit to settled, status)."""
        (self.workdir / f"{stack}.yaml").write_text(text)
        started = time.perf_counter()
        definition = load_stack(DirectorySource(self.workdir), f"{stack}.yaml", limits=LIMITS)
        loaded = time.perf_counter()
        self.engine.submit(stack, DesiredGeneration(commit, self.policy, definition))
        report = self.engine.converge([stack], self.clock.now() + 36_000)[stack]
        return loaded - started, time.perf_counter() - loaded, report.status.value


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--flat", type=int, action="append", default=[], help="a flat stack of N (repeatable)"
    )
    parser.add_argument("--group", type=int, default=0, help="a ResourceGroup of N members")
    arguments = parser.parse_args()
    bench = Bench()
    for count in arguments.flat:
        stack = f"flat{count}"
        load, create, status = bench.converge(stack, flat(count, 1), "c1")
        print(f"{count} OS::Heat::None create: {status} in {create:.2f} s (+{load:.2f} s template load)")
        load, update, status = bench.converge(stack, flat(count, 2), "c2")
        print(f"{count} OS::Heat::None update: {status} in {update:.2f} s (+{load:.2f} s template load)")
        print(f"  peak memory so far {peak_mib():.0f} MiB")
    if arguments.group:
        load, create, status = bench.converge("group", group(arguments.group), "c1")
        print(
            f"ResourceGroup of {arguments.group} OS::Heat::None: {status} in {create:.1f} s "
            f"(+{load:.2f} s load)"
        )
        print(f"  peak memory {peak_mib():.0f} MiB")
    bench.engine.close()
    bench.store.close()
    shutil.rmtree(bench.workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
