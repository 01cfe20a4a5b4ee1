"""The CPU a simulated server's resident machine costs: its boot, then its boot and teardown.

    python -m bench.machine_boot_cpu                # 40 machines, one after another
    python -m bench.machine_boot_cpu --machines 100

Machines booted one after another as the fleet boots them (`Machines`, a way to the agent API
and a neighbour's address, the fleet's state hidden, their directories spread as the fleet's
are), each read on its live processes once it runs (the launcher's own CPU and its first
process's, with everything that process reaped: the boot's interpreter and commands); then all
stopped, and the CPU of every process of theirs counted (boot and teardown). Printed per
machine, with the CPU this process spent booting them (the host's side) and the load average.
Needs root and user namespaces (the machines the fleet boots then).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from reconciler.agent.agent_gateway import AgentAddress, AgentGateway
from reconciler.agent.directory_hierarchies import mark_top_of_hierarchies
from reconciler.agent.resident_machines import Machines
from reconciler.agent.sandbox import isolation_available, remove_tree
from reconciler.agent.sandbox_machine import LISTENED_BY_HOST, Machine, booted_as
from reconciler.agent.sandbox_users import users_switchable

SETTLE = 0.02  # s after a boot before reading its processes: what it reaped is counted by then


def process_cpu(pid: int, *, reaped: bool) -> float:
    """The CPU seconds of process `pid`, with those of the children it reaped when `reaped`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if reaped else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def own_cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def measure(workdir: Path, machines_count: int) -> dict[str, float]:
    mark_top_of_hierarchies(workdir)
    gateway = AgentGateway(AgentAddress(("169.254.169.254", 80), ("127.0.0.1", 9)))
    gateway.start()
    machines = Machines(gateway)
    machines.start()
    load_before = os.getloadavg()[0]
    host_before, children_before = own_cpu(resource.RUSAGE_SELF), own_cpu(resource.RUSAGE_CHILDREN)
    booting = 0.0
    try:
        for number in range(machines_count):
            server = workdir / f"server-{number}"
            machine = Machine(f"server-{number}", peers=("10.0.0.5",))
            way = booted_as(machine, server, LISTENED_BY_HOST, workdir)
            running = machines.machine(server.name, (server / "runs").absolute(), way)
            time.sleep(SETTLE)
            booting += process_cpu(running.process.pid, reaped=False) + process_cpu(running.init, reaped=True)
        host = own_cpu(resource.RUSAGE_SELF) - host_before
    finally:
        machines.stop()
        gateway.stop()
    both = own_cpu(resource.RUSAGE_CHILDREN) - children_before
    return {
        "machines": machines_count,
        "boot_cpu_ms": 1000 * booting / machines_count,
        "boot_and_teardown_cpu_ms": 1000 * both / machines_count,
        "host_side_of_boot_cpu_ms": 1000 * host / machines_count,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=40)
    options = parser.parse_args()
    if not (isolation_available() and users_switchable()):
        raise SystemExit("needs root and user namespaces: the fleet's machines are booted there")
    workdir = Path(tempfile.mkdtemp(prefix="bench-machine-boot-"))
    try:
        figures = measure(workdir, options.machines)
    finally:
        remove_tree(workdir)
    for name, value in figures.items():
        print(f"{name}: {value:,.1f}")


if __name__ == "__main__":
    main()
