"""The simulated cloud's VMs: an agent for every server booted with something to run.

A real VM runs cloud-init (its user data's scripts, once) and os-collect-config with heat-config
(polling its metadata URL, running each new deployment once, signalling back). The simulated
cloud has no VMs, so this fleet does both for each of its ACTIVE servers whose user data holds a
script (RAW user data starting with `#!`, or the script parts of a multipart message), is Heat's
SOFTWARE_CONFIG, or which boot from a config drive (the isolated-network pattern):

- the user data's scripts run once, as cloud-init runs them;
- the metadata URL the user data names (os-collect-config's `request.metadata_url`) is polled
  every `interval` seconds over HTTP, like any agent; deployments run with `reconciler agent`'s
  hooks.

Every script runs in the sandbox (`reconciler.agent.sandbox`): a directory of their own, the
only place they may write, a time limit, and no network but the agent API, reached through this
fleet's gateway at the address VMs are given (`agent_address`), so a script can signal a wait
condition handle with its `curl_cli` as on a VM.

Which servers run, and who each one is, the fleet learns from its hypervisor (`sim_hypervisor`):
the simulated cloud itself when the fleet runs in the cloud's process, the daemon over a socket
when it runs in a process of its own (`sim_agents_process`, as `reconciler run` runs it).

Each server's agent keeps what it ran in a directory of its own under `state_dir` (beside the
simulated cloud's file), so a daemon restarted over the same cloud runs no script twice. Agents
stop with the fleet; a script still running then is killed with its server's machine, and its
run, interrupted, is neither recorded nor signalled: the next agent runs it again.

Each server's sandbox keeps a root file system of its own over the host's (in its state
directory, removed with it when the server is deleted): what a script writes, a later one on the
same server finds, and the host's files are never changed.

Each server's sandbox is a resident machine (`resident_machines`), as a VM is: booted when its
first script (or an ssh connection to it) needs it, its scripts entered into it, and stopped,
with everything its scripts left running there, when the server is deleted or the fleet stops.

Each server is a machine as cloud-init leaves one (`sim_machines`, `sandbox_first_boot`): its
host name, its image's default user (`ec2-user` unless the image's `default_user` property names
another) holding the key pair's key, and its neighbours by name in `/etc/hosts`. A connection from
a server's script to a neighbour's address on port 22 reaches `sshd -i` in that neighbour's own
sandbox, if the simulated network lets it through (same network, security groups); nothing else
is reachable. This needs the daemon to run as root (the sandbox then maps the ids users need) and
Debian's `openssh-server` for sshd; without them scripts run as root with no such identity, and
the fleet says so when it starts.

Each volume attached to a server is a disk of its sandbox (`sim_disks`): `/dev/vdb` appears
while its script runs, as on a VM, and `mkfs.ext4`, `mount`, `umount` work on it. This needs the
daemon to run as root, loop devices and FUSE (Debian's `fuse2fs`); without them servers have no
disks, and the fleet says so when it starts.

Limits: a script sees the host's files and tools beneath its server's own, so one that installs
packages from the network fails where a VM's would not; `#cloud-config` user data is not
interpreted (no corpus template signals from it).
"""

from __future__ import annotations

import hashlib
import logging
import random
import socket
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from reconciler.agent.agent_gateway import AgentAddress, AgentGateway
from reconciler.agent.directory_hierarchies import mark_top_of_hierarchies
from reconciler.agent.hooks import Hook, HookChooser, RunInterrupted
from reconciler.agent.peer_gateway import PeerGateway, Session
from reconciler.agent.poller import Agent
from reconciler.agent.resident_machine import MachineFailed
from reconciler.agent.resident_machines import Machines, MachinesStopped, resident_script_hook
from reconciler.agent.sandbox import (
    chooser,
    isolation_available,
    relay_available,
    remove_tree,
    sandboxed_hooks,
)
from reconciler.agent.sandbox_machine import LISTENED_BY_HOST, SSH_PORT, MachineWay, booted_as
from reconciler.agent.sandbox_sshd import serve_ssh, sshd_path
from reconciler.agent.sandbox_users import users_switchable
from reconciler.agent.user_data import BootData, read_user_data
from reconciler.daemon.sim_hypervisor import BootedServer, CloudHypervisor, Hypervisor

LOG = logging.getLogger(__name__)


def boot_run(script: str) -> dict[str, Any]:
    """A user data script as a run the agent remembers by id: run once, nobody signalled."""
    digest = hashlib.sha256(script.encode()).hexdigest()[:32]
    return {"id": f"boot-{digest}", "name": "user-data", "group": "script", "config": script}


class ServerAgent:
    """One server's agent on a thread of its own: boot scripts, then polls until stopped."""

    def __init__(
        self,
        server_id: str,
        boot: BootData,
        agent: Agent,
        interval: float,
        first_wait: float,
        *,
        power_on: Callable[[], None] = lambda: None,
    ) -> None:
        """`power_on` boots the server's machine, before its agent runs anything."""
        self.server_id = server_id
        self._power_on = power_on
        self.agent = agent
        self._boot = boot
        self._interval = interval
        self._first_wait = first_wait
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"sim-agent-{server_id[:8]}", daemon=True)
        self.executed = 0  # runs this agent executed (not those it remembered)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()

    def join(self, timeout: float) -> None:
        self._thread.join(timeout)

    def _ran(self, runs: int) -> None:
        if runs:
            self.executed += runs
            LOG.info("simulated agent of server %s ran %d script(s)", self.server_id, runs)

    def _run(self) -> None:
        try:
            self._power_on()
            for script in self._boot.scripts:
                self._ran(int(self.agent.deploy(boot_run(script))))
            if self._boot.metadata_url is None or self._stopped.wait(self._first_wait):
                return
            while True:
                ran = self.agent.poll()
                self._ran(ran)
                # scripts take time: what was published meanwhile is fetched at once, not a poll later
                if self._stopped.wait(0 if ran else self._interval):
                    return
        except RunInterrupted as interrupted:
            LOG.info("the simulated agent of server %s stopped: %s", self.server_id, interrupted)
        except Exception:
            LOG.exception("the simulated agent of server %s stopped", self.server_id)


class SimulatedAgents:
    """The fleet: `scan()` starts an agent for every booted server and stops those of servers gone."""

    def __init__(
        self,
        hypervisor: Hypervisor | Callable[[], SimulatedCloud | None],
        state_dir: Path,
        *,
        interval: float = 5.0,
        time_limit: float = 600.0,
        scan_interval: float = 1.0,
        hooks: Mapping[str, Hook] | None = None,
        random_source: random.Random | None = None,
        agent_address: AgentAddress | None = None,
    ) -> None:
        """`hypervisor` says which servers run and who they are (a callable: the simulated cloud
        of this process once it is open, None before); `hooks`: config groups other than `script`
        served by a hook of their own instead of the stand-in; `agent_address`: the agent API
        scripts may reach (none: scripts reach no network)."""
        self._hypervisor = CloudHypervisor(hypervisor, state_dir) if callable(hypervisor) else hypervisor
        self._gateway = AgentGateway(agent_address) if agent_address is not None else None
        self._state_dir = state_dir
        self._interval = interval
        self._time_limit = time_limit
        self._scan_interval = scan_interval
        self._plugged = hooks
        self._peers = PeerGateway(self._route)
        self._resident = Machines(self._gateway, self._peers) if isolation_available() else None
        self._machines: set[str] = set()  # servers whose state directory holds a machine
        self._random = random_source or random.Random()
        self._agents: dict[str, ServerAgent] = {}
        self._plain: set[str] = set()  # servers booted with nothing for an agent to run
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._woken = threading.Event()
        self._scanner: threading.Thread | None = None

    def start(self) -> None:
        if not isolation_available():
            LOG.warning("user namespaces are not available: simulated agents run scripts unconfined")
        elif self._gateway is not None and not relay_available():
            LOG.warning("iproute2's ip is missing: sandboxed scripts cannot reach the agent API")
        if isolation_available() and not users_switchable():
            LOG.warning(
                "the daemon does not run as root: simulated servers have root alone (no default user, "
                "no host name, no ssh); scripts that switch users fail"
            )
        elif isolation_available() and sshd_path() is None:
            LOG.warning("openssh-server is not installed: simulated servers refuse ssh connections")
        mark_top_of_hierarchies(self._state_dir)
        no_disks = self._hypervisor.start_disks()
        if no_disks is not None:
            LOG.warning("simulated servers have no disks (attached volumes are no devices): %s", no_disks)
        if self._gateway is not None:
            self._gateway.start()
        self._peers.start()
        if self._resident is not None:
            self._resident.start()
        self._scanner = threading.Thread(target=self._scan_forever, name="sim-agents", daemon=True)
        self._scanner.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop scanning and every agent, waiting up to `timeout` s for them, then every machine (a
        script still running is killed with it)."""
        self._stopped.set()
        self._woken.set()
        if self._scanner is not None:
            self._scanner.join(timeout)
        with self._lock:
            agents = list(self._agents.values())
            self._agents.clear()
        for agent in agents:
            agent.stop()
        for agent in agents:
            agent.join(timeout / max(1, len(agents)))
        if self._resident is not None:
            self._resident.stop()  # a script still running is killed with its machine
        if self._gateway is not None:
            self._gateway.stop()
        self._peers.stop()
        self._hypervisor.release_disks()

    def wake(self) -> None:
        """Scan now rather than at the next interval (the hypervisor's servers changed)."""
        self._woken.set()

    def scan(self) -> int:
        """Agents for the booted servers the hypervisor runs now; how many run."""
        servers = self._hypervisor.booted()
        with self._lock:
            if self._stopped.is_set():
                return 0
            for server_id in (set(self._agents) | self._machines | self._plain) - set(servers):
                if server_id in self._agents:
                    self._agents.pop(server_id).stop()
                self._plain.discard(server_id)
                self._machines.discard(server_id)
                self._peers.forget(server_id)
                if self._resident is not None:
                    self._resident.remove(server_id)
                remove_tree(self._state_dir / server_id)
            for server_id, booted in servers.items():
                if server_id not in self._agents and server_id not in self._plain:
                    self._boot(server_id, booted)
            running, equipped = len(self._agents), set(self._agents) | self._machines
        self._hypervisor.converge_disks(equipped)
        return running

    def executed(self) -> int:
        """How many runs (boot scripts, deployments) the agents of this fleet executed."""
        with self._lock:
            return sum(agent.executed for agent in self._agents.values())

    def runs(self, server_id: str) -> Mapping[str, Mapping[str, Any]]:
        """What the server's agent ran, by run id (boot scripts: `boot-...`): results and signals."""
        with self._lock:
            agent = self._agents.get(server_id)
        return {} if agent is None else agent.agent.runs()

    def _boot(self, server_id: str, booted: BootedServer) -> None:
        boot = read_user_data(booted.user_data)
        if not (boot.scripts or boot.software_config or booted.config_drive):
            self._plain.add(server_id)
            return
        agent = Agent(
            boot.metadata_url or "",
            self._state_dir / server_id,
            self._time_limit,
            hooks=self._hooks_of(server_id),
        )
        # agents booted by one scan spread their polls, as VMs booted apart do
        first_wait = self._random.uniform(0, min(1.0, self._interval))
        started = ServerAgent(
            server_id, boot, agent, self._interval, first_wait, power_on=lambda: self._power_on(server_id)
        )
        self._agents[server_id] = started
        started.start()
        LOG.info("simulated agent for server %s started (%d run(s) remembered)", server_id, len(agent.runs()))

    def _power_on(self, server_id: str) -> None:
        """Boot the server's machine as its agent starts, as a VM boots before its agent runs; a
        machine that cannot boot is tried again, and its reason reported, by the first script."""
        if self._resident is None:
            return
        runs = (self._state_dir / server_id / "runs").absolute()
        try:
            self._resident.machine(server_id, runs, self._machine(server_id))
        except MachinesStopped:
            return  # the fleet is stopping
        except MachineFailed as error:
            LOG.warning("the machine of server %s did not boot: %s", server_id, error)

    def _hooks_of(self, server_id: str) -> HookChooser:
        """The hooks of one server's agent: its scripts run in its resident machine (in a sandbox
        of their own where there are none: scripts run unconfined then)."""
        if self._resident is None:
            return chooser(sandboxed_hooks(self._plugged, self._gateway, lambda: self._machine(server_id)))
        script = resident_script_hook(self._resident, server_id, lambda: self._machine(server_id))
        return chooser({"script": script, **(self._plugged or {})})

    def _machine(self, server_id: str) -> MachineWay | None:
        """The server as a machine now (its spec written afresh), reaching its neighbours; None
        where the sandbox cannot give a machine its users."""
        if not users_switchable():
            return None
        machine = self._hypervisor.machine(server_id)
        if machine is None:
            return None
        with self._lock:
            self._machines.add(server_id)
        self._hypervisor.prepare_disks(server_id)
        peer_socket = LISTENED_BY_HOST if sshd_path() is not None else None
        return booted_as(machine, self._state_dir / server_id, peer_socket, hidden=self._state_dir)

    def _route(self, source_id: str, address: str, port: int) -> Session | None:
        """What a connection from a server's sandbox to `address`:`port` reaches: sshd on a neighbour
        the simulated network lets it reach, or nothing."""
        if port != SSH_PORT:
            return None
        target = self._hypervisor.route(source_id, address, port)
        way = self._machine(target) if target is not None else None
        if target is None or way is None or self._resident is None:
            return None
        server_dir, time_limit, machines = self._state_dir / target, self._time_limit, self._resident

        def enter(run_dir: str) -> Sequence[str]:
            return machines.machine(target, (server_dir / "runs").absolute(), way).prefix(run_dir)

        def session(connection: socket.socket) -> None:
            try:
                serve_ssh(connection, server_dir, way, time_limit, enter)
            except MachineFailed as error:
                LOG.warning("an ssh connection to server %s found no machine: %s", target, error)

        return session

    def _scan_forever(self) -> None:
        while not self._stopped.is_set():
            try:
                self.scan()
            except Exception:
                LOG.exception("scanning the simulated cloud's servers failed; trying again")
            self._woken.wait(self._scan_interval)
            self._woken.clear()
