"""Validate and plan at 50,000 resources: full schema checks of the template, and the plan of a
one-line change of the stack once it is converged.

    python -m bench.plan_large [--nodes 10000] [--yaml]

The template is the one `bench.engine_scale` converges: N groups of (port, server, volume,
attachment, value), every resource of a type with a schema, so validation checks every property
against it. Validation is what `reconciler validate` does (load, resource schema checks, outputs,
warnings) within the `limits:` the repository sets (Heat's 512 KiB raised). The stack is then
converged (simulated cloud in-process, SQLite file), one line of the template changed (one server's
name) and planned twice over: in the setup's own process as the daemon plans a pull request's
head (its blocks kept in memory since the converged commit's load), and as `reconciler plan` plans
it, in new processes (`--runs`, default 3). Each plan is the template loaded with the resource
blocks and the load image (what each resource yielded: type, dependencies, parsed properties,
clean checks) the load of the converged commit kept in the store, the records read with the plan
memo the daemon made once the stack converged (only the records of what the change touches),
every resource decided, and the plan's entries made with their property changes. Each phase is
timed apart, wall and CPU, and the whole as a user counts it. Last, the real `reconciler plan`
command runs as many times on the change committed to git (`limits:` of `reconciler.yaml` raising
Heat's 512 KiB template size), timed from outside as a user waits for it: its modules' imports,
the commit read, the plan and its rendering. The template is JSON (one resource per line), or with
`--yaml` block-style YAML as people write it. The process is tuned as the commands tune it (the
collector frozen after setup, paused during loads and plans).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import git
import yaml

from bench.engine_scale import node
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.collector import collector_paused, tune_process
from reconciler.daemon.memo_records import keep_plan_memo, records_for_plan
from reconciler.daemon.plan_notes import StoredRecords
from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.engine import DesiredGeneration, Engine, EngineSettings, Policy, SoleWorkerLeases
from reconciler.plan import UpdateRules, plan_stack
from reconciler.source.plan_entries import planned_actions
from reconciler.templates import DirectorySource, StackDefinition, load_repository_limits, load_stack
from reconciler.templates.limits import Limits
from state.store import Store, open_store
from timekeeping.testing import SteppedClock

T = TypeVar("T")

# the stack as the repository declares it, Heat's 512 KiB template size raised as an operator would
RECONCILER_YAML = (
    "stacks:\n  big: {template: stack.yaml, cloud: sim}\nlimits: {max_template_size: 67108864}\n"
)


def template(nodes: int, renamed: int | None = None, *, as_yaml: bool = False) -> str:
    """The stack as JSON, one resource per line (or as block-style YAML, as people write it);
    `renamed`: that server's name changed (one line)."""
    resources: dict[str, Any] = {"net": {"type": "OS::Neutron::Net"}}
    for index in range(nodes):
        resources.update(node(index, "node"))
    if renamed is not None:
        resources[f"server{renamed}"]["properties"]["name"] = f"renamed-{renamed}"
    if as_yaml:
        document = {"heat_template_version": "2018-08-31", "resources": resources}
        return yaml.safe_dump(document, sort_keys=False, default_flow_style=False)
    lines = [f"  {json.dumps(name)}: {json.dumps(body)}" for name, body in resources.items()]
    return '{"heat_template_version": "2018-08-31", "resources": {\n' + ",\n".join(lines) + "\n}}\n"


def timed(label: str, work: Callable[[], T]) -> T:
    wall, cpu = time.perf_counter(), time.process_time()
    result = work()
    print(f"  {label}: {time.perf_counter() - wall:.2f} s wall, {time.process_time() - cpu:.2f} s CPU")
    return result


def validate(files: DirectorySource, limits: Limits) -> StackDefinition:
    """What `reconciler validate` does."""
    definition = load_stack(files, "stack.yaml", limits=limits, stack_name="big")
    for name in definition.outputs:
        definition.output_without_cloud(name)
    _ = definition.warnings
    return definition


def timed_plan(
    store: Store, files: DirectorySource, blocks: StoredBlocks, rules: UpdateRules, limits: Limits
) -> None:
    """The changed template loaded with `blocks`, its records read with the plan memo, every
    resource decided and the plan's entries made, each phase timed and the whole."""
    started_wall, started_cpu = time.perf_counter(), time.process_time()
    changed = timed(
        "template load (parse, model, checks)",
        lambda: load_stack(files, "stack.yaml", limits=limits, stack_name="big", blocks=blocks),
    )
    recorded, settled = timed(
        "records read (with the plan memo)", lambda: records_for_plan(store, "big", changed)
    )
    plan = timed(
        "every resource decided",
        lambda: plan_stack(
            changed, recorded, rules, stack="big", nested=StoredRecords(store), settled=settled
        ),
    )
    entries = timed("entries with property changes", lambda: planned_actions(plan, changed))
    print(
        f"  end to end: {time.perf_counter() - started_wall:.2f} s wall, "
        f"{time.process_time() - started_cpu:.2f} s CPU; update "
        f"{[entry.resource for entry in entries.update]}, unchanged {entries.unchanged}"
    )


def plan_in(workdir: Path) -> None:
    """One plan of the changed template against the converged stack's store, as `reconciler plan`
    makes it in a process of its own (modules imported, then every phase timed)."""
    tune_process()
    clock = SteppedClock()
    store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
    rules = CloudRoot(clock, sim=SimulatedProvider(SimulatedCloud(clock=clock.now))).for_cloud("sim")
    with collector_paused():  # as `reconciler plan` runs its loads and plans
        files = DirectorySource(workdir)
        blocks = StoredBlocks(store.template_blocks())
        timed_plan(store, files, blocks, rules, load_repository_limits(files))
    store.close()


def plan_command_in(workdir: Path, runs: int) -> None:
    """`reconciler plan` of the change committed on top of the converged stack, `runs` times, each
    timed whole from outside: wall, and CPU of the process (user and system)."""
    repo = git.Repo.init(workdir, initial_branch="main")
    repo.index.add(["reconciler.yaml", "stack.yaml"])
    repo.index.commit("Rename one server")
    command = [sys.executable, "-m", "reconciler.cli.main", "plan", "--repo", str(workdir)]
    command += ["--database", f"sqlite:///{workdir / 'state.sqlite'}", "--format", "json"]
    for _ in range(runs):
        before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        wall, after = time.perf_counter() - wall, resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
        if done.returncode != 2:  # 2: something would change
            raise SystemExit(f"reconciler plan exited {done.returncode}: {done.stdout}{done.stderr}")
        [stack] = json.loads(done.stdout)["stacks"]
        updated = [entry["resource"] for entry in stack["plan"]["update"]]
        print(f"  reconciler plan: {wall:.2f} s wall, {cpu:.2f} s CPU; update {updated}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--nodes", type=int, default=10_000, help="groups of 5 resources (default 10,000)")
    parser.add_argument("--yaml", action="store_true", help="the template in block-style YAML, not JSON")
    parser.add_argument("--runs", type=int, default=3, help="plans, each in a new process (default 3)")
    parser.add_argument("--plan-in", type=Path, help=argparse.SUPPRESS)  # one plan, in this process
    arguments = parser.parse_args()
    if arguments.plan_in is not None:
        plan_in(arguments.plan_in)
        return
    workdir = Path(tempfile.mkdtemp(prefix="bench-plan-"))
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    try:
        files = DirectorySource(workdir)
        (workdir / "reconciler.yaml").write_text(RECONCILER_YAML)
        limits = load_repository_limits(files)
        (workdir / "stack.yaml").write_text(template(arguments.nodes, as_yaml=arguments.yaml))
        print(f"validate {arguments.nodes * 5 + 1} resources with full schema checks:")
        tune_process()  # as `reconciler validate`, `plan` and `apply` run: collector tuned, loads paused
        with collector_paused():
            definition = timed("load + checks + outputs + warnings", lambda: validate(files, limits))

        clock = SteppedClock()
        store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
        sim = SimulatedProvider(SimulatedCloud(clock=clock.now, sleep=clock.sleep))
        leases = SoleWorkerLeases(store, "bench", clock)
        for shard in range(store.settings.shard_count):
            leases.want(shard)
        clouds = CloudRoot(clock, sim=sim)
        engine = Engine(
            store, clouds, clock, "bench", leases=leases, sleeper=clock, settings=EngineSettings()
        )
        engine.submit("big", DesiredGeneration("c1", Policy("sim", True, True, 3600.0), definition))
        status = engine.converge(["big"], clock.now() + 36_000)["big"].status.value
        engine.close()
        print(f"converged: {status}")
        kept = StoredBlocks(store.template_blocks())  # the daemon's, kept in memory between loads
        with collector_paused():  # the daemon's load of the converged commit keeps its blocks
            converged = timed(
                "template load before the change (blocks kept)",
                lambda: load_stack(files, "stack.yaml", limits=limits, stack_name="big", blocks=kept),
            )
            # as the daemon does once the stack converged: its plan memo made
            timed("plan memo of the converged commit", lambda: keep_plan_memo(store, "big", converged))

        (workdir / "stack.yaml").write_text(
            template(arguments.nodes, renamed=arguments.nodes // 2, as_yaml=arguments.yaml)
        )
        print("plan of a one-line change (one server renamed), in the daemon's process (a PR's plan note):")
        rules = clouds.for_cloud("sim")
        with collector_paused():
            timed_plan(store, files, kept, rules, limits)
        store.close()
        print(f"plan of a one-line change (one server renamed), in {arguments.runs} new processes:")
        for _ in range(arguments.runs):
            subprocess.run([sys.executable, "-m", "bench.plan_large", "--plan-in", str(workdir)], check=True)
        print(f"the same plan by the `reconciler plan` command, {arguments.runs} times:")
        plan_command_in(workdir, arguments.runs)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
