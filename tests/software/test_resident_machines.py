"""A server's sandbox is a machine that stays up while the server does, as a VM does.

Given a server's resident machine, when its scripts run, then they all run in the same
namespaces (none made for a script), another server's in others, and what a script leaves
running keeps running there, seen by the next script. When the machine is removed (its server
gone), when the machines stop, and when the process holding them is killed, then nothing of it is
left running on the host. A script past its time limit is stopped, the machine staying up. The
same holds for the simulated cloud's agents: a server deleted, the agents' process stopped or
killed, what its scripts left running is gone, and a script cut short by the agents stopping is
not recorded as run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.hooks import TIMED_OUT
from reconciler.agent.resident_machine import MachineFailed, ResidentMachine
from reconciler.agent.resident_machines import NOT_STARTED, Machines, resident_script_hook
from reconciler.agent.sandbox import isolation_available
from reconciler.agent.sandbox_machine import Machine, MachineWay, booted_as
from reconciler.agent.sandbox_users import users_switchable
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_sim_agents import agents_for, converge_in_real_time, wait_until
from tests.software.test_sim_agents_process import process_for
from tests.system_tools import required_tool

pytestmark = pytest.mark.skipif(not isolation_available(), reason="user namespaces are not available here")

# a machine is given a spec, and updates of it, only where its users are mapped (as root)
SPEC_GIVEN = pytest.mark.skipif(not users_switchable(), reason="machines get a spec only as root")
NAMESPACES = "#!/bin/sh\nfor kind in user mnt pid uts net; do readlink /proc/self/ns/$kind; done\n"


def marker() -> str:
    """A `sleep` no other process of the host runs: how a leftover process is found from outside."""
    return f"{4000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6:06d}"


def running_with(argument: str) -> list[int]:
    """The host's processes running `sleep argument`."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if entry.name.isdigit() and command[:2] == [b"sleep", argument.encode()]:
            found.append(int(entry.name))
    return found


@pytest.fixture
def machines() -> Iterator[Machines]:
    machines = Machines()
    machines.start()
    yield machines
    machines.stop()


def way_of(server: Path, name: str) -> MachineWay | None:
    return booted_as(Machine(name), server) if users_switchable() else None


def run(machines: Machines, server: Path, script: str, time_limit: float = 30) -> dict[str, Any]:
    hook = resident_script_hook(machines, server.name, lambda: way_of(server, server.name))
    return hook({"config": script}, server / "runs", time_limit)


@pytest.fixture
def booted(machines: Machines, tmp_path: Path) -> ResidentMachine:
    """A server's machine, booted by a first script (its server's directory: `tmp_path/server`)."""
    server = tmp_path / "server"
    run(machines, server, "#!/bin/sh")
    return machines.machine(server.name, server / "runs", way_of(server, server.name))


def test_a_servers_scripts_run_in_one_machine_and_no_namespace_is_made_for_a_script(
    machines: Machines, tmp_path: Path
) -> None:
    first = run(machines, tmp_path / "one", NAMESPACES)
    later = run(machines, tmp_path / "one", NAMESPACES)
    other = run(machines, tmp_path / "two", NAMESPACES)
    assert first["deploy_status_code"] == 0, first
    assert later["deploy_stdout"] == first["deploy_stdout"]
    assert set(other["deploy_stdout"].splitlines()).isdisjoint(first["deploy_stdout"].splitlines())
    assert sorted(machines.running()) == ["one", "two"]


def test_what_a_script_leaves_running_keeps_running_in_its_machine_until_it_is_removed(
    machines: Machines, tmp_path: Path
) -> None:
    server, sleeping = tmp_path / "server", marker()
    started = run(machines, server, f"#!/bin/sh\nsleep {sleeping} >/dev/null 2>&1 &\necho started")
    assert started["deploy_stdout"] == "started\n", started
    listing = "for p in /proc/[0-9]*; do tr '\\0' ' ' < $p/cmdline; echo; done"
    seen = run(machines, server, f"#!/bin/sh\n{listing} | grep -c '^sleep {sleeping}'")
    assert seen["deploy_stdout"] == "1\n", seen
    assert len(running_with(sleeping)) == 1
    machines.remove(server.name)
    assert running_with(sleeping) == []
    assert machines.running() == []


def test_stopping_the_machines_leaves_nothing_of_them_running(tmp_path: Path) -> None:
    machines = Machines()
    machines.start()
    sleeping = marker()
    try:
        for name in ("one", "two"):
            run(machines, tmp_path / name, f"#!/bin/sh\nsleep {sleeping} >/dev/null 2>&1 &")
        wait_until(lambda: len(running_with(sleeping)) == 2, 10)  # what a script left may still be starting
    finally:
        machines.stop()
    assert running_with(sleeping) == []


def test_a_script_past_its_time_limit_is_stopped_and_its_machine_stays(
    machines: Machines, tmp_path: Path
) -> None:
    server, sleeping = tmp_path / "server", marker()
    stopped = run(machines, server, f"#!/bin/sh\nsleep {sleeping}", time_limit=0.5)
    assert stopped["deploy_status_code"] == TIMED_OUT
    wait_until(lambda: running_with(sleeping) == [], 10)
    assert run(machines, server, "#!/bin/sh\necho up")["deploy_stdout"] == "up\n"


def test_a_script_is_started_by_its_machines_keeper_as_a_new_program_with_its_inputs_alone(
    machines: Machines, tmp_path: Path
) -> None:
    large = "x" * 120_000  # twice that: more than one message on the keeper's channel holds
    script = (
        "#!/bin/sh\n"
        'echo "$large$again" | wc -c; echo "$small"; pwd; env | grep -c .\n'
        "grep -E '^(SigBlk|SigIgn)' /proc/self/status\n"
        "exec ls /proc/self/fd\n"  # its descriptors: 0 to 2, and the one ls reads the list from
    )
    hook = resident_script_hook(machines, "server", lambda: way_of(tmp_path / "server", "server"))
    inputs = [{"name": name, "value": large} for name in ("large", "again")]
    inputs.append({"name": "small", "value": "a b\nc"})
    results: list[dict[str, Any]] = []

    def blocking_signals() -> None:  # the machines' starter, and every keeper, inherit this mask
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1, signal.SIGTERM})
        results.append(hook({"config": script, "inputs": inputs}, tmp_path / "server" / "runs", 30))

    starting = threading.Thread(target=blocking_signals)
    starting.start()
    starting.join()
    result = results[0]
    lines = result["deploy_stdout"].splitlines()
    assert result["deploy_status_code"] == 0, result
    assert lines[:3] == ["240001", "a b", "c"]
    assert lines[3].startswith(str((tmp_path / "server" / "runs").absolute()))
    # PATH, HOME, TMPDIR, heat_outputs_path, the three inputs (small's on two lines), and PWD that sh sets
    assert int(lines[4]) == 9
    blocked, ignored = (int(line.split()[1], 16) for line in lines[5:7])
    assert blocked == 0
    assert ignored & (1 << (signal.SIGPIPE - 1) | 1 << (signal.SIGXFSZ - 1)) == 0  # as a new program's
    assert sorted(int(number) for number in lines[7:]) == [0, 1, 2, 3]


def test_a_script_without_its_interpreter_line_runs_under_sh_and_one_that_cannot_start_says_why(
    machines: Machines, tmp_path: Path
) -> None:
    plain = run(machines, tmp_path / "server", "echo plain $0")
    assert plain["deploy_status_code"] == 0, plain
    assert plain["deploy_stdout"].startswith("plain ")
    missing = run(machines, tmp_path / "server", "#!/no/such/interpreter\n")
    assert missing["deploy_status_code"] == 126
    assert "No such file or directory" in missing["deploy_stderr"]
    assert run(machines, tmp_path / "server", "#!/bin/sh\necho up")["deploy_stdout"] == "up\n"


def test_an_input_the_kernel_cannot_pass_fails_the_script_with_the_reason_and_the_machine_stays(
    machines: Machines, tmp_path: Path
) -> None:
    hook = resident_script_hook(machines, "server", lambda: way_of(tmp_path / "server", "server"))
    deployment = {"config": "#!/bin/sh\necho ran", "inputs": [{"name": "nul", "value": "a\0b"}]}
    refused = hook(deployment, tmp_path / "server" / "runs", 30)
    assert refused["deploy_status_code"] == 126
    assert "NUL" in refused["deploy_stderr"]
    assert refused["deploy_stdout"] == ""
    assert run(machines, tmp_path / "server", "#!/bin/sh\necho up")["deploy_stdout"] == "up\n"


def test_a_killed_starter_takes_its_machines_with_it_and_the_next_script_boots_a_new_one(
    machines: Machines, tmp_path: Path
) -> None:
    server, sleeping = tmp_path / "server", marker()
    run(machines, server, f"#!/bin/sh\nsleep {sleeping} >/dev/null 2>&1 &")
    wait_until(lambda: len(running_with(sleeping)) == 1, 10)
    starter = machines.starter_pid()
    assert starter is not None
    os.kill(starter, signal.SIGKILL)
    wait_until(lambda: running_with(sleeping) == [] and machines.running() == [], 10)
    again = run(machines, server, "#!/bin/sh\necho up")
    assert again["deploy_stdout"] == "up\n", again
    assert machines.starter_pid() not in (None, starter)
    assert machines.running() == ["server"]


def test_a_machine_that_cannot_boot_fails_its_script_with_the_reason_and_leaves_nothing(
    machines: Machines, tmp_path: Path
) -> None:
    server = tmp_path / "server"
    (server / "root").mkdir(parents=True)
    (server / "root" / "tree").write_text("a file where the machine's root must go")
    failed = run(machines, server, "#!/bin/sh\necho never")
    assert failed["deploy_status_code"] == NOT_STARTED
    assert "tree" in failed["deploy_stderr"] and "File exists" in failed["deploy_stderr"], failed
    assert machines.running() == []
    starter = machines.starter_pid()
    assert starter is not None
    children = Path(f"/proc/{starter}/task/{starter}/children")
    wait_until(lambda: children.read_text().split() == [], 10)  # its keeper reaped, nothing left


@SPEC_GIVEN
def test_a_running_machine_takes_a_new_name_and_hosts_from_its_keeper_leaving_no_process(
    machines: Machines, tmp_path: Path
) -> None:
    server, shown = tmp_path / "server", "#!/bin/sh\nhostname; cat /etc/hostname; grep -c db- /etc/hosts"
    assert run(machines, server, shown)["deploy_stdout"] == "server\nserver\n0\n"
    hosts = (("10.0.0.7", "db-1"), ("10.0.0.8", "db-2"))
    renamed = booted_as(Machine("renamed", hosts=hosts), server)
    hook = resident_script_hook(machines, server.name, lambda: renamed)
    updated = hook({"config": shown}, server / "runs", 30)
    assert updated["deploy_stdout"] == "renamed\nrenamed\n2\n", updated
    keeper = machines.machine(server.name, server / "runs", renamed).keeper.pid
    children = Path(f"/proc/{keeper}/task/{keeper}/children")
    assert len(children.read_text().split()) == 1  # the machine's first process; the update's reaped


@SPEC_GIVEN
def test_a_spec_a_running_machine_cannot_take_fails_the_script_with_the_reason_and_the_machine_stays(
    machines: Machines, tmp_path: Path
) -> None:
    server = tmp_path / "server"
    assert run(machines, server, "#!/bin/sh\necho up")["deploy_stdout"] == "up\n"
    way = booted_as(Machine("server"), server)
    way.spec.write_text("default_user ec2-user\n")  # no host name
    failed = resident_script_hook(machines, server.name, lambda: way)(
        {"config": "#!/bin/sh"}, server / "runs", 30
    )
    assert failed["deploy_status_code"] == NOT_STARTED
    assert "the machine took no update: the spec names no host name" in failed["deploy_stderr"], failed
    assert machines.running() == ["server"]
    assert run(machines, server, "#!/bin/sh\nhostname")["deploy_stdout"] == "server\n"


@SPEC_GIVEN
def test_a_request_the_keeper_cannot_apply_is_answered_with_the_reason_and_the_machine_stays(
    machines: Machines, booted: ResidentMachine
) -> None:
    for request in (b"update\x00not-a-prefix", b"update\x00300.1.2.3/24"):
        booted.control.sendall(request)
        answer = booted.control.recv(65536)
        assert answer.startswith(b"!"), (request, answer)
    assert booted.alive()
    assert run(machines, booted.runs_dir.parent, "#!/bin/sh\necho up")["deploy_stdout"] == "up\n"


@SPEC_GIVEN
def test_an_update_asked_of_a_machine_that_ended_fails_with_the_reason(booted: ResidentMachine) -> None:
    booted.keeper.kill()
    assert booted.keeper.ended(10)
    with pytest.raises(MachineFailed, match="the machine took no update: the machine ended"):
        booted.update(booted_as(Machine("renamed"), booted.runs_dir.parent))


AS_A_USER = """
import json, sys
from pathlib import Path
from reconciler.agent.resident_machines import Machines, resident_script_hook
machines = Machines()
machines.start()
try:
    hook = resident_script_hook(machines, "server", lambda: None)
    print(json.dumps(hook({"config": sys.argv[2]}, Path(sys.argv[1]) / "runs", 30)))
finally:
    machines.stop()
"""


def test_a_user_other_than_root_boots_machines_that_map_only_its_own_id(tmp_path: Path) -> None:
    """The daemon need not run as root: then a machine's user namespace maps the user's own id to
    root (`sandbox_starter.map_own_ids`), and its scripts run there as that root."""
    unshare = required_tool("unshare")
    written = "echo written > /etc/by-a-script && cat /etc/by-a-script\n"
    shown = "#!/bin/sh\nid -u\n" + NAMESPACES.removeprefix("#!/bin/sh\n") + written
    # as root here: a user namespace of its own, where this process is user 1000 with no capability
    as_user = [unshare, "--user", "--map-user=1000", "--map-group=1000"] if users_switchable() else []
    done = subprocess.run(
        [*as_user, sys.executable, "-c", AS_A_USER, str(tmp_path / "server"), shown],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["deploy_status_code"] == 0, result
    lines = result["deploy_stdout"].splitlines()
    assert lines[0] == "0" and lines[-1] == "written"
    host = {os.readlink(f"/proc/self/ns/{kind}") for kind in ("user", "mnt", "pid", "uts", "net")}
    assert host.isdisjoint(lines[1:6]) and len(set(lines[1:6])) == 5
    assert not Path("/etc/by-a-script").exists()


HOLDER = """
import sys, time
from pathlib import Path
from reconciler.agent.resident_machines import NOT_STARTED, Machines, resident_script_hook
machines = Machines()
machines.start()
server = Path(sys.argv[1])
hook = resident_script_hook(machines, "server", lambda: None)
hook({"config": "#!/bin/sh\\nsleep " + sys.argv[2] + " >/dev/null 2>&1 &"}, server / "runs", 30)
print("started", flush=True)
time.sleep(120)
"""


def test_a_machine_dies_with_the_process_holding_it(tmp_path: Path) -> None:
    sleeping = marker()
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(tmp_path / "server"), sleeping], stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline() == "started\n"
        wait_until(lambda: len(running_with(sleeping)) == 1, 10)  # what the script left may still be starting
    finally:
        holder.kill()  # as an agents' process killed: no chance to stop its machines
        holder.wait()
    deadline = time.monotonic() + 10
    while running_with(sleeping) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with(sleeping) == []


LEAVING = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      config: "#!/bin/sh\\nsleep {sleeping} >/dev/null 2>&1 &\\necho left\\n"
  server:
    type: OS::Nova::Server
    properties: {{image: cirros-0.6.2-x86_64-disk, flavor: m1.small, user_data_format: SOFTWARE_CONFIG}}
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties: {{config: {{get_resource: config}}, server: {{get_resource: server}}}}
outputs:
  server: {{value: {{get_resource: server}}}}
"""


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url)
    yield world
    world.close()


def leave_a_process(world: SoftwareWorld) -> tuple[str, str]:
    """Converge a server whose script leaves `sleep` running; its id and the sleep's marker."""
    sleeping = marker()
    world.commit({"leaving.yaml": LEAVING.format(sleeping=sleeping)})
    world.submit("leaving", "leaving.yaml")
    assert converge_in_real_time(world, "leaving") is StackStatus.CONVERGED
    assert len(running_with(sleeping)) == 1
    return world.outputs("leaving")["server"], sleeping


def test_a_deleted_servers_machine_is_stopped_with_what_ran_in_it(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    agents = agents_for(world, tmp_path / "agents")
    try:
        server_id, sleeping = leave_a_process(world)
        world.cloud.vanish("servers", server_id)
        wait_until(lambda: running_with(sleeping) == [], 30)
        wait_until(lambda: not (tmp_path / "agents" / server_id).exists(), 30)
    finally:
        agents.stop()


def test_the_machines_stop_with_the_agents_process(world: SoftwareWorld, tmp_path: Path) -> None:
    agents = process_for(world, tmp_path / "agents")
    try:
        _, sleeping = leave_a_process(world)
    finally:
        agents.stop()
    assert running_with(sleeping) == []


def test_the_machines_die_with_a_killed_agents_process(world: SoftwareWorld, tmp_path: Path) -> None:
    agents = process_for(world, tmp_path / "agents")
    try:
        _, sleeping = leave_a_process(world)
        killed = agents.pid
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        wait_until(lambda: running_with(sleeping) == [], 30)
    finally:
        agents.stop()


def test_a_script_cut_short_by_the_agents_stopping_is_not_recorded(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    sleeping = marker()
    world.commit({"long.yaml": LEAVING.format(sleeping=sleeping).replace(" >/dev/null 2>&1 &", "")})
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("long", "long.yaml")

        def running_its_script() -> bool:
            world.engine.step()
            world.clock.sleep(1.0)
            return len(running_with(sleeping)) == 1

        wait_until(running_its_script, 60)
    finally:
        agents.stop()
    assert running_with(sleeping) == []
    recorded = [json.loads(path.read_text()) for path in (tmp_path / "agents").glob("*/deployed.json")]
    assert [runs for runs in recorded if runs] == []  # the next agent runs it again


def test_importing_the_boots_modules_leaves_the_importing_process_as_it_was() -> None:
    # run by path, they turn the collector off and put the package on the path: imported, neither
    probe = (
        "import gc, sys; path = list(sys.path)\n"
        "import reconciler.agent.sandbox, reconciler.agent.sandbox_starter, reconciler.agent.sandbox_boot\n"
        "print(gc.isenabled(), sys.path == path)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout == "True True\n"


ROOT_AND_OVERLAYS = """#!/bin/sh
awk '$5 == "/" { for (i = 6; i <= NF; i++) if ($i == "-") print $(i + 1) }' /proc/self/mountinfo
grep -c ' - overlay ' /proc/self/mountinfo
"""


def host_mount_points_at_the_top() -> set[str]:
    points = {line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()}
    return {point for point in points if point.count("/") == 1 and point != "/"} - {"/proc", "/sys", "/dev"}


@pytest.mark.skipif(os.geteuid() != 0, reason="the host's view is made by a starter that is the host's root")
def test_a_machines_root_is_one_overlay_on_the_hosts_and_keeps_what_its_scripts_wrote(
    machines: Machines, tmp_path: Path
) -> None:
    """Given a starter that is the host's root; when a server's scripts write at the top, in /etc
    and beside the test's files; then its machine's root is one overlay (one more at most for each
    top-level directory that is a file system of its own), a later script of the server finds what
    they wrote, another server's does not, and the host has none of it."""
    name = f"machine-probe-{uuid.uuid4().hex[:12]}"
    paths = [Path("/") / name, Path("/etc") / name, tmp_path / name]
    listed = " ".join(str(path) for path in paths)
    try:
        seen = run(machines, tmp_path / "one", ROOT_AND_OVERLAYS)
        root, overlays = seen["deploy_stdout"].split()
        assert root == "overlay"
        assert 1 <= int(overlays) <= 1 + len(host_mount_points_at_the_top())

        wrote = run(
            machines, tmp_path / "one", f"#!/bin/sh\nfor p in {listed}; do echo kept > $p || exit 1; done"
        )
        assert wrote["deploy_status_code"] == 0, wrote
        later = run(machines, tmp_path / "one", f"#!/bin/sh\ncat {listed}")
        other = run(machines, tmp_path / "two", f"#!/bin/sh\ncat {listed}")

        assert later["deploy_stdout"] == "kept\n" * 3
        assert other["deploy_stdout"] == "" and "No such file" in other["deploy_stderr"]
        assert [path for path in paths if path.exists()] == []
    finally:
        for path in paths:
            path.unlink(missing_ok=True)


VIEW = """
from reconciler.agent.sandbox_root import drop_view, host_view
view = host_view()
print(view is not None)
if view is not None:
    drop_view(view)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the host's view is made by a starter that is the host's root")
def test_no_host_view_is_made_in_a_temporary_directory_that_is_a_file_system_of_its_own() -> None:
    """/dev/shm: its top-level directory is a mount; a view there would be locked beneath it."""
    root = Path(__file__).resolve().parents[2]

    def made(**environment: str) -> str:
        ran = subprocess.run(
            [sys.executable, "-c", VIEW],
            check=False,
            cwd=root,
            env={**os.environ, **environment},
            capture_output=True,
            text=True,
        )
        assert ran.returncode == 0, ran.stderr
        return ran.stdout.strip()

    assert made() == "True"
    assert made(TMPDIR="/dev/shm") == "False"
