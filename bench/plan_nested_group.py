"""A plan of a group change, with every member's nested stack planned against its own records.

    python -m bench.plan_nested_group [--members 1000]

Converges a ResourceGroup of N template-resource members (each holding two OS::Heat::None) on
SQLite, then plans the same template (nothing changes: the group's nested stack is not walked)
and `count` going from N to N - 1, the way `reconciler plan` and plan notes do (the group's
nested stack and each member's planned against the store's records). Prints the convergence
time, each plan's time and what it lists.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from reconciler.daemon.clouds import CloudRoot
from reconciler.daemon.plan_notes import StoredRecords
from reconciler.daemon.recorded_rows import recorded_for_plan
from reconciler.engine import DesiredGeneration, Engine, Policy, SoleWorkerLeases
from reconciler.plan import plan_stack
from reconciler.source.plan_entries import planned_actions
from reconciler.templates import DirectorySource, load_stack
from state.store import open_store
from timekeeping import SystemClock

MEMBER = """heat_template_version: 2018-08-31
resources:
  first: {type: OS::Heat::None}
  second: {type: OS::Heat::None, properties: {after: {get_resource: first}}}
"""


def group(count: int) -> str:
    return (
        "heat_template_version: 2018-08-31\nresources:\n  nodes:\n    type: OS::Heat::ResourceGroup\n"
        f"    properties:\n      count: {count}\n      resource_def: {{type: member.yaml}}\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--members", type=int, default=1000)
    members = parser.parse_args().members
    workdir = Path(tempfile.mkdtemp(prefix="bench-plan-"))
    try:
        clock = SystemClock()
        store = open_store(f"sqlite:///{workdir / 'state.sqlite'}", clock=clock)
        leases = SoleWorkerLeases(store, "bench", clock)
        for shard in range(store.settings.shard_count):
            leases.want(shard)
        clouds = CloudRoot(clock, sim_path=workdir / "sim.json")
        engine = Engine(store, clouds, clock, "bench", leases=leases, sleeper=clock)
        (workdir / "member.yaml").write_text(MEMBER)
        (workdir / "stack.yaml").write_text(group(members))
        started = time.perf_counter()
        definition = load_stack(DirectorySource(workdir), "stack.yaml")
        engine.submit("tree", DesiredGeneration("c1", Policy("sim", True, True, 3600.0), definition))
        status = engine.converge(["tree"], clock.now() + 36_000)["tree"].status.value
        took = time.perf_counter() - started
        print(f"converged {members} members ({3 * members + 1} resources): {status} in {took:.1f} s")

        for count in (members, members - 1):
            (workdir / "stack.yaml").write_text(group(count))
            started = time.perf_counter()
            changed = load_stack(DirectorySource(workdir), "stack.yaml")
            recorded = recorded_for_plan(store.read_compared_records("tree"))
            rules = clouds.for_cloud("sim")
            plan = plan_stack(changed, recorded, rules, stack="tree", nested=StoredRecords(store))
            actions = planned_actions(plan)
            took = time.perf_counter() - started
            print(f"plan of count {members} -> {count}: {took:.2f} s")
            deleted = [entry.resource for entry in actions.delete]
            print(f"  update {[entry.resource for entry in actions.update]}, delete {deleted}")
        engine.close()
        store.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
