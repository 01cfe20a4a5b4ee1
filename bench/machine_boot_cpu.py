"""The CPU a simulated server's resident machine costs: its boot, its scripts, its teardown.

    python -m bench.machine_boot_cpu                # 40 machines, one after another
    python -m bench.machine_boot_cpu --machines 100 --neighbours 1000

Machines booted one after another as the fleet boots them (`Machines`, a way to the agent API
and a neighbour's address, the fleet's state hidden, their directories spread as the fleet's
are), each read on its live processes once it runs (its keeper's own CPU and its first
process's, the boot included, with everything that process reaped), the machines' starter's
added once all booted (the forks and the user maps). Then one script each (`echo`, as the
fleet's script hook enters it), and one each after a thousand new neighbours joined their
network (the machine's update first, forked by its keeper: /etc/hosts, their addresses made
local), both counted with everything they started. Then all stopped, and the CPU of every
process of theirs counted (boot and teardown). Printed per machine, with the CPU this process
spent booting them (the host's side) and the load average.
Needs root and user namespaces (the machines the fleet boots then).
"""

from __future__ import annotations

import argparse
import functools
import ipaddress
import os
import resource
import tempfile
import time
from pathlib import Path

from reconciler.agent.agent_gateway import AgentAddress, AgentGateway
from reconciler.agent.directory_hierarchies import mark_top_of_hierarchies
from reconciler.agent.resident_machines import Machines, resident_script_hook
from reconciler.agent.sandbox import isolation_available, remove_tree
from reconciler.agent.sandbox_machine import LISTENED_BY_HOST, SPEC, Machine, MachineWay, booted_as
from reconciler.agent.sandbox_users import users_switchable

GROWN = 1_000
SCRIPT = {"config": "#!/bin/sh\necho hi\n", "inputs": [{"name": "a", "value": "b"}], "outputs": []}
SETTLE = 0.02  # s after a boot before reading its processes: what it reaped is counted by then


def process_cpu(pid: int, *, reaped: bool) -> float:
    """The CPU seconds of process `pid`, with those of the children it reaped when `reaped`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + ((int(fields[13]) + int(fields[14])) if reaped else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def own_cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def neighbourhood(number: int, neighbours: int) -> Machine:
    """Machine `number`, with `neighbours` on its network numbered in a row from 10.0.0.5."""
    first = ipaddress.IPv4Address("10.0.0.5")
    hosts = tuple((str(first + index), f"neighbour-{index}") for index in range(neighbours))
    return Machine(f"server-{number}", hosts=hosts, peers=tuple(address for address, _ in hosts))


def run_scripts(machines: Machines, workdir: Path, keepers: list[int], grown: int) -> float:
    """One script entered into each machine, after `grown` new neighbours joined: its CPU, all
    its processes', the host's side and the machine's update (its keeper's work) included."""

    def spent() -> float:
        ours = own_cpu(resource.RUSAGE_SELF) + own_cpu(resource.RUSAGE_CHILDREN)
        return ours + sum(process_cpu(keeper, reaped=True) for keeper in keepers)

    before = spent()
    for number in range(len(keepers)):
        server = workdir / f"server-{number}"
        way = booted_as(
            neighbourhood(number, len(read_peers(server)) + grown), server, LISTENED_BY_HOST, workdir
        )
        result = resident_script_hook(machines, server.name, functools.partial(same, way))(
            SCRIPT, server / "runs", 30
        )
        if result["deploy_status_code"] != 0:
            raise SystemExit(f"a script failed: {result['deploy_stderr']}")
    return spent() - before


def same(way: MachineWay) -> MachineWay:
    return way


def read_peers(server: Path) -> list[str]:
    text = (server / SPEC).read_text(encoding="utf-8")
    return [line for line in text.splitlines() if line.startswith("host ")]


def measure(workdir: Path, machines_count: int, neighbours: int) -> dict[str, float]:
    mark_top_of_hierarchies(workdir)
    gateway = AgentGateway(AgentAddress(("169.254.169.254", 80), ("127.0.0.1", 9)))
    gateway.start()
    machines = Machines(gateway)
    machines.start()
    load_before = os.getloadavg()[0]
    host_before, children_before = own_cpu(resource.RUSAGE_SELF), own_cpu(resource.RUSAGE_CHILDREN)
    booting = 0.0
    keepers: list[int] = []
    try:
        for number in range(machines_count):
            server = workdir / f"server-{number}"
            way = booted_as(neighbourhood(number, neighbours), server, LISTENED_BY_HOST, workdir)
            running = machines.machine(server.name, (server / "runs").absolute(), way)
            time.sleep(SETTLE)
            booting += process_cpu(running.keeper.pid, reaped=False) + process_cpu(running.init, reaped=True)
            keepers.append(running.keeper.pid)
        starter = machines.starter_pid()
        booting += process_cpu(starter, reaped=False) if starter is not None else 0.0  # forks and maps
        host = own_cpu(resource.RUSAGE_SELF) - host_before
        scripts = [run_scripts(machines, workdir, keepers, grown) for grown in (0, GROWN)]
    finally:
        machines.stop()
        gateway.stop()
    both = own_cpu(resource.RUSAGE_CHILDREN) - children_before
    return {
        "machines": machines_count,
        "boot_cpu_ms": 1000 * booting / machines_count,
        "boot_and_teardown_cpu_ms": 1000 * both / machines_count,
        "host_side_of_boot_cpu_ms": 1000 * host / machines_count,
        "script_cpu_ms": 1000 * scripts[0] / machines_count,
        f"script_after_{GROWN}_new_neighbours_cpu_ms": 1000 * scripts[1] / machines_count,
        "load_average_before": load_before,
        "load_average_after": os.getloadavg()[0],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--machines", type=int, default=40)
    parser.add_argument("--neighbours", type=int, default=1, help="other servers on the network at boot")
    options = parser.parse_args()
    if not (isolation_available() and users_switchable()):
        raise SystemExit("needs root and user namespaces: the fleet's machines are booted there")
    workdir = Path(tempfile.mkdtemp(prefix="bench-machine-boot-"))
    try:
        figures = measure(workdir, options.machines, options.neighbours)
    finally:
        remove_tree(workdir)
    for name, value in figures.items():
        print(f"{name}: {value:,.1f}")


if __name__ == "__main__":
    main()
