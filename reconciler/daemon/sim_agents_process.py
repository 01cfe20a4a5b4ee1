"""The simulated cloud's agents out of the daemon's process, as a real cloud's VMs are.

`AgentsProcess` starts one process (`sim_agents_main`) that runs every simulated server's agent
and their sandboxes; it reaches the daemon's agent API over HTTP only, like a VM. What a
hypervisor knows, the daemon tells it over a socket pair (`sim_agents_link`): every scan interval,
the servers booted since (with their user data) and those deleted, and the machines' stamp when it
changed; and it answers the process's questions (a server as a machine, with the stamp it was made
at; whom a connection reaches) and requests (its servers' disks) from the simulated cloud
(`sim_hypervisor.CloudHypervisor`). The agents' log records come back and are logged here.

The loop devices of the servers' disks are this process's: they are released when the agents'
process ends (before another is started, which plugs them anew) and when the daemon stops.

The process dies with the daemon (it is killed when the thread that started it ends, and stops
its agents when the link closes). If it dies on its own, it is started again after a pause and
told every running server anew; each agent remembers what it ran in its state directory, so no
script runs twice.
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping
from functools import partial
from pathlib import Path
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from reconciler.agent.agent_gateway import AgentAddress
from reconciler.daemon.sim_agents_link import Link, Message
from reconciler.daemon.sim_hypervisor import BootedServer, CloudHypervisor, Hypervisor

LOG = logging.getLogger(__name__)
MAIN_MODULE = "reconciler.daemon.sim_agents_main"
RESTART_PAUSES = (1.0, 2.0, 5.0, 10.0, 30.0)  # before each restart in a row of quick deaths
LIVED_LONG = 60.0  # seconds of life after which a death counts as the first in a row


class AgentsProcess:
    """`start()`, then `stop()`: the agents' process, restarted whenever it dies meanwhile."""

    def __init__(
        self,
        hypervisor: Hypervisor | Callable[[], SimulatedCloud | None],
        state_dir: Path,
        *,
        interval: float = 5.0,
        time_limit: float = 600.0,
        scan_interval: float = 1.0,
        agent_address: AgentAddress | None = None,
    ) -> None:
        """As `SimulatedAgents` takes them: `hypervisor` (or the simulated cloud it reads) says
        which servers run; the agents poll every `interval` s, keep their state under
        `state_dir`, and their scripts reach the agent API at `agent_address` (none: no network)."""
        self._hypervisor = CloudHypervisor(hypervisor, state_dir) if callable(hypervisor) else hypervisor
        self._state_dir = state_dir
        self._interval = interval
        self._time_limit = time_limit
        self._scan_interval = scan_interval
        self._agent_address = agent_address
        self._stopping = threading.Event()
        self._publish_now = threading.Event()
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._link: Link | None = None
        self._told: Mapping[str, BootedServer] = {}  # what the process was told runs
        self._told_stamp: list[int] | None = None  # the machines' stamp it was told
        self._fresh = False  # a process started since: tell it everything
        self._supervisor = threading.Thread(target=self._supervise, name="sim-agents-process", daemon=True)
        self._publisher = threading.Thread(target=self._publish_forever, name="sim-agents-boots", daemon=True)

    @property
    def pid(self) -> int | None:
        """The agents' process now, if one runs."""
        with self._lock:
            return self._process.pid if self._process is not None else None

    def start(self) -> None:
        self._supervisor.start()
        self._publisher.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the process's agents (waiting up to `timeout` s for them) and the process."""
        self._stopping.set()
        self._publish_now.set()
        with self._lock:
            link, process = self._link, self._process
        if link is not None:
            link.close_sending()  # the process stops its agents and ends
        self._supervisor.join(timeout + 5.0)
        if process is not None and process.poll() is None:
            process.kill()
        self._supervisor.join(5.0)
        self._publisher.join(5.0)
        self._hypervisor.release_disks()

    def _supervise(self) -> None:
        """Run the process until it ends, and again after a pause unless stopping."""
        deaths = 0
        while not self._stopping.is_set():
            started = time.monotonic()
            status = self._run_once()
            if self._stopping.is_set():
                return
            deaths = 1 if time.monotonic() - started > LIVED_LONG else deaths + 1
            pause = RESTART_PAUSES[min(deaths, len(RESTART_PAUSES)) - 1]
            LOG.warning("the simulated agents' process ended (%s); started again in %g s", status, pause)
            self._stopping.wait(pause)

    def _run_once(self) -> int:
        """Start the process, serve its link until it ends; its exit status."""
        process, link = self._spawn()
        reader = threading.Thread(target=link.serve, args=(partial(self._received, link),), daemon=True)
        reader.start()
        with self._lock:
            self._process, self._link, self._fresh = process, link, True
        self._publish_now.set()
        status = process.wait()
        with self._lock:
            self._link = None
        link.close()
        reader.join(5.0)
        self._hypervisor.release_disks()  # no disk outlives the sandboxes that saw it
        return status

    def _spawn(self) -> tuple[subprocess.Popen[bytes], Link]:
        ours, theirs = socket.socketpair()
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-m", MAIN_MODULE, *self._arguments(theirs.fileno())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
            )
        LOG.info("simulated agents' process %d started", process.pid)
        return process, Link(ours)

    def _arguments(self, link_fd: int) -> list[str]:
        arguments = [
            *("--link-fd", str(link_fd), "--parent", str(os.getpid())),
            *("--state-dir", str(self._state_dir.absolute())),
            *("--interval", repr(self._interval), "--time-limit", repr(self._time_limit)),
            *("--scan-interval", repr(self._scan_interval)),
            *("--log-level", str(logging.getLogger().getEffectiveLevel())),
        ]
        if self._agent_address is not None:
            reached, served = self._agent_address.reached_at, self._agent_address.served_at
            arguments += ["--agent-reached-at", f"{reached[0]}:{reached[1]}"]
            arguments += ["--agent-served-at", f"{served[0]}:{served[1]}"]
        return arguments

    def _received(self, link: Link, message: Message) -> None:
        """A message of the process: a log record, or a question about the cloud."""
        try:
            if "log" in message:
                level, name, text = message["log"]
                logging.getLogger(str(name)).log(int(level), "%s", text)
            elif "machine" in message:
                stamp = self._hypervisor.machine_stamp()  # before: a change meanwhile leaves it behind
                machine = self._hypervisor.document(str(message["machine"]))
                link.answer(message, {"machine": machine, "stamp": stamp})
            elif "route" in message:
                source_id, address, port = message["route"]
                link.answer(message, self._hypervisor.route(str(source_id), str(address), int(port)))
            elif "disks" in message:
                link.answer(message, self._disks(message["disks"]))
        except Exception:
            LOG.exception("a message of the simulated agents' process could not be answered")
            if "ask" in message:
                link.answer(message, None)

    def _disks(self, request: Mapping[str, Any]) -> str | None:
        """Do what the process asks of its servers' disks; why there are none, for `start`."""
        if "start" in request:
            return self._hypervisor.start_disks()
        if "prepare" in request:
            self._hypervisor.prepare_disks(str(request["prepare"]))
        elif "converge" in request:
            self._hypervisor.converge_disks([str(server_id) for server_id in request["converge"]])
        elif "release" in request:
            self._hypervisor.release_disks()
        return None

    def _publish_forever(self) -> None:
        while not self._stopping.is_set():
            try:
                self._publish()
            except Exception:
                LOG.exception("telling the simulated agents which servers run failed; trying again")
            self._publish_now.wait(self._scan_interval)
            self._publish_now.clear()

    def _publish(self) -> None:
        """Tell the process the servers booted and gone since it was last told (all, if it is new)."""
        with self._lock:
            link, fresh = self._link, self._fresh
        if link is None:
            return
        stamp = self._hypervisor.machine_stamp()
        running = self._hypervisor.booted()
        told = {} if fresh else self._told
        booted = {
            server_id: [server.user_data, server.config_drive]
            for server_id, server in running.items()
            if told.get(server_id) != server
        }
        gone = [server_id for server_id in self._told if server_id not in running]
        restamped = fresh or stamp != self._told_stamp
        if (booted or gone or restamped) and not link.send({"servers": booted, "gone": gone, "stamp": stamp}):
            return  # the process is gone: its successor is told everything
        with self._lock:
            self._told, self._told_stamp = running, stamp
            if self._link is link:
                self._fresh = False
