"""The simulated cloud's VMs in a process of their own, as a real cloud's run beside its control plane.

    python -m reconciler.daemon.sim_agents_main --link-fd FD --parent PID --state-dir DIR ...

Started by the daemon (`sim_agents_process`) with one end of a socket pair (`sim_agents_link`): the
daemon says which servers run (`servers`: booted, with their user data; `gone`: deleted), as a
hypervisor learns of a boot, answers what a server is (`machine`) and whom a connection reaches
(`route`), and exposes attached volumes as the servers' disks (`disks`); everything else (polling
metadata, signalling) goes over HTTP to the agent API, as from a VM. The fleet
(`sim_agents.SimulatedAgents`) runs here; its log records go back over the link, so they land in
the daemon's log in the daemon's format.

The process dies with its parent (the kernel kills it when the thread that started it ends) and
stops its agents when the link closes.
"""

from __future__ import annotations

import argparse
import ctypes
import logging
import os
import resource
import signal
import socket
import sys
import threading
from collections.abc import Callable, Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from reconciler.agent.agent_gateway import AgentAddress
from reconciler.agent.sandbox_machine import Machine
from reconciler.daemon.collector import tune_process
from reconciler.daemon.sim_agents import SimulatedAgents
from reconciler.daemon.sim_agents_link import Link, LinkLost, Message
from reconciler.daemon.sim_hypervisor import BootedServer
from reconciler.daemon.sim_machines import machine_document, machine_from

PR_SET_PDEATHSIG = 1
QUESTION_TIMEOUT = 30.0  # seconds an agent waits for the daemon's answer before going without
AGENT_THREAD_STACK = 512 * 1024  # a thread per agent: a thousand need no 8 MiB stacks


class RemoteHypervisor:
    """The daemon's hypervisor, over the link: servers as it announces them, questions asked."""

    def __init__(self, link: Link, changed: Callable[[], None] = lambda: None) -> None:
        self._link = link
        self.changed = changed
        self._servers: dict[str, BootedServer] = {}
        self._stamp: list[int] | None = None  # the machines' stamp the daemon last announced
        self._machines: dict[str, tuple[list[int], Machine]] = {}  # each with the stamp it was made at
        self._prepared: set[str] = set()  # servers whose disks the daemon readied (it keeps them so)
        self._lock = threading.Lock()

    def receive(self, message: Message) -> None:
        """A message of the daemon's: servers booted and gone, and the machines' stamp."""
        booted = message.get("servers") or {}
        with self._lock:
            for server_id, (user_data, config_drive) in booted.items():
                self._servers[server_id] = BootedServer(user_data, bool(config_drive))
            for server_id in message.get("gone") or ():
                self._servers.pop(server_id, None)
                self._machines.pop(server_id, None)
                self._prepared.discard(server_id)
            if "stamp" in message:
                self._stamp = message["stamp"]
        if booted or message.get("gone"):
            self.changed()

    def booted(self) -> Mapping[str, BootedServer]:
        with self._lock:
            return dict(self._servers)

    def machine(self, server_id: str) -> Machine | None:
        """The server's machine as last made, while nothing it is made of changed since; else asked."""
        with self._lock:
            known = self._machines.get(server_id)
            if known is not None and known[0] == self._stamp:
                return known[1]
        try:
            answer = self._link.ask({"machine": server_id}, QUESTION_TIMEOUT)
        except (LinkLost, TimeoutError):
            return None
        if not isinstance(answer, dict):  # the daemon could not answer (it said so in its log)
            return None
        machine, stamp = machine_from(answer.get("machine")), answer.get("stamp")
        if machine is not None and stamp is not None:
            with self._lock:
                if server_id in self._servers:  # not one gone meanwhile
                    self._machines[server_id] = (stamp, machine)
        return machine

    def document(self, server_id: str) -> dict[str, Any] | None:
        machine = self.machine(server_id)
        return None if machine is None else machine_document(machine)

    def machine_stamp(self) -> list[int] | None:
        with self._lock:
            return self._stamp

    def route(self, source_id: str, address: str, port: int) -> str | None:
        try:
            target = self._link.ask({"route": [source_id, address, port]}, QUESTION_TIMEOUT)
        except (LinkLost, TimeoutError):
            return None
        return None if target is None else str(target)

    def start_disks(self) -> str | None:
        reason = self._disks({"start": True})
        return None if reason is None else str(reason)

    def prepare_disks(self, server_id: str) -> None:
        with self._lock:
            if server_id in self._prepared:
                return
        try:
            self._link.ask({"disks": {"prepare": server_id}}, QUESTION_TIMEOUT)
        except (LinkLost, TimeoutError):
            return  # asked again before the next script
        with self._lock:
            if server_id in self._servers:
                self._prepared.add(server_id)

    def converge_disks(self, equipped: Collection[str]) -> None:
        self._disks({"converge": sorted(equipped)})

    def release_disks(self) -> None:
        self._disks({"release": True})

    def _disks(self, request: Message) -> Any:
        """The daemon's answer to a request about disks (None when it gave none in time)."""
        try:
            return self._link.ask({"disks": request}, QUESTION_TIMEOUT)
        except (LinkLost, TimeoutError):
            return None


class LinkLogHandler(logging.Handler):
    """Log records sent to the daemon, which logs them as its own."""

    def __init__(self, link: Link) -> None:
        super().__init__()
        self._link = link

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = record.getMessage()
            if record.exc_info:
                text += "\n" + logging.Formatter().formatException(record.exc_info)
            self._link.send({"log": [record.levelno, record.name, text]})
        except Exception:
            self.handleError(record)


def die_with_parent(parent: int) -> None:
    """Have the kernel kill this process when its parent's starting thread ends; if the parent is
    already gone, end now."""
    if sys.platform == "linux":
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def _address(text: str | None) -> tuple[str, int] | None:
    if not text:
        return None
    host, _, port = text.rpartition(":")
    return host, int(port)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--link-fd", type=int, required=True)
    parser.add_argument("--parent", type=int, required=True)
    parser.add_argument("--state-dir", type=Path, required=True)
    parser.add_argument("--interval", type=float, default=5.0)
    parser.add_argument("--time-limit", type=float, default=600.0)
    parser.add_argument("--scan-interval", type=float, default=1.0)
    parser.add_argument("--stop-timeout", type=float, default=5.0)
    parser.add_argument("--agent-reached-at", help="HOST:PORT scripts are given for the agent API")
    parser.add_argument("--agent-served-at", help="HOST:PORT the agent API listens on")
    parser.add_argument("--log-level", type=int, default=logging.INFO)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    options = _arguments(argv)
    die_with_parent(options.parent)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's ^C is the daemon's to handle
    link = Link(socket.socket(fileno=options.link_fd))
    root = logging.getLogger()
    root.handlers[:] = [LinkLogHandler(link)]
    root.setLevel(options.log_level)
    reached, served = _address(options.agent_reached_at), _address(options.agent_served_at)
    threading.stack_size(AGENT_THREAD_STACK)
    hypervisor = RemoteHypervisor(link)
    fleet = SimulatedAgents(
        hypervisor,
        options.state_dir,
        interval=options.interval,
        time_limit=options.time_limit,
        scan_interval=options.scan_interval,
        agent_address=AgentAddress(reached, served) if reached and served else None,
    )
    hypervisor.changed = fleet.wake
    tune_process()
    open_files_raised()
    # the link is served before the fleet starts: starting asks the daemon about disks
    serving = threading.Thread(target=link.serve, args=(hypervisor.receive,), name="sim-agents-link")
    serving.start()
    fleet.start()
    serving.join()  # until the daemon closes the link, or dies
    fleet.stop(options.stop_timeout)
    return 0


def open_files_raised() -> int:
    """The soft limit of open files raised to the hard one; the new soft limit.

    Each server's resident machine holds four descriptors here (its listeners, its keeper's pidfd
    and control channel): a fleet of a thousand outgrows the soft limit of 1,024 that systemd
    gives a service, which leaves raising it to the program that needs more."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
        except (OSError, ValueError) as error:
            logging.getLogger(__name__).warning("open files stay limited to %d: %s", soft, error)
    return soft


if __name__ == "__main__":
    sys.exit(main())
