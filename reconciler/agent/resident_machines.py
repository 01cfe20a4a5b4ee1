"""The resident machines of a fleet's servers: booted when first needed, kept while the server is.

A server's machine (`resident_machine`) is booted the first time one of its scripts or an ssh
connection to it needs it, and given what changed in its spec at every later entry. It is stopped
when its server goes (`remove`), when the fleet stops (`stop`), and found dead and booted again
if it died on its own. Every machine is forked by the machines' starter (`machine_starts`),
itself started from one thread of this registry, which lives until `stop`: the starter dies with
that thread and every machine with the starter, so machines never outlive the process holding
them, whichever thread needed them first. A starter found dead is started again.

Connections a machine's scripts make reach the host through its listeners, all served by one
thread (`machine_listeners`): the agent API's address goes to the agent gateway's relay, the
neighbours' addresses to the peer gateway's routing.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from pathlib import Path
from typing import Any

from reconciler.agent.agent_gateway import AgentGateway
from reconciler.agent.hooks import Hook, RunInterrupted, script_hook
from reconciler.agent.machine_listeners import Handler, MachineListeners
from reconciler.agent.machine_starts import MachineStarter
from reconciler.agent.peer_gateway import PeerGateway
from reconciler.agent.process_starts import started_apart
from reconciler.agent.resident_machine import Listened, MachineFailed, ResidentMachine
from reconciler.agent.sandbox_machine import MachineWay

NOT_STARTED = 125  # a script's status when its machine could not boot, as the boot's own


class MachinesStopped(MachineFailed):
    """The machines are stopping: no machine is booted or entered any more."""


class Machines:
    """`start()`, then `machine(...)` for a server's running machine, `remove`, and `stop()`."""

    def __init__(self, gateway: AgentGateway | None = None, peers: PeerGateway | None = None) -> None:
        self._gateway = gateway
        self._peers = peers
        self._listeners = MachineListeners()
        self._spawner = ThreadPoolExecutor(1, thread_name_prefix="machines")
        self._starter: MachineStarter | None = None
        self._running: dict[str, ResidentMachine] = {}
        self._booting: dict[str, threading.Lock] = {}
        self._lock = threading.Lock()
        self._stopped = False

    def start(self) -> None:
        self._listeners.start()

    def machine(self, server_id: str, runs_dir: Path, way: MachineWay | None) -> ResidentMachine:
        """The server's running machine (booted now if it is not), given `way` as it is now."""
        with self._server_lock(server_id):
            running = self._running.get(server_id)
            if running is not None and not running.alive():
                self._forget(server_id)
                running = None
            if running is None:
                running, listened = ResidentMachine.boot(runs_dir, self._gateway, way, self._started())
                with self._lock:
                    if self._stopped:
                        running.stop()
                        _close(listened)
                        raise MachinesStopped("the machines are stopped")
                    self._running[server_id] = running
                self._adopt(server_id, listened)
            else:
                running.update(way)
            return running

    def starter_pid(self) -> int | None:
        """The machines' starter's process id, while it runs (what a benchmark reads its CPU by)."""
        with self._lock:
            return self._starter.pid if self._starter is not None and self._starter.alive() else None

    def running(self) -> list[str]:
        """The servers whose machine runs now."""
        with self._lock:
            return [server_id for server_id, machine in self._running.items() if machine.alive()]

    def remove(self, server_id: str) -> None:
        """Stop the server's machine, if it has one (the server is gone)."""
        with self._server_lock(server_id):
            self._forget(server_id)
        with self._lock:
            self._booting.pop(server_id, None)

    def stop(self) -> None:
        """Stop every machine, then serve no listener."""
        with self._lock:
            self._stopped = True
            machines = list(self._running.values())
            self._running.clear()
        for machine in machines:
            machine.kill()  # all at once: the kernel tears them down side by side
        for machine in machines:
            machine.stop()
        with self._lock:
            starter, self._starter = self._starter, None
        if starter is not None:
            starter.stop()
        self._listeners.stop()
        self._spawner.shutdown(wait=False)

    def _server_lock(self, server_id: str) -> threading.Lock:
        with self._lock:
            if self._stopped:
                raise MachinesStopped("the machines are stopped")
            return self._booting.setdefault(server_id, threading.Lock())

    def _forget(self, server_id: str) -> None:
        with self._lock:
            machine = self._running.pop(server_id, None)
        if machine is not None:
            machine.stop()
        self._listeners.drop(server_id)

    def _started(self) -> MachineStarter:
        """The machines' starter, started (again, if it died) from the registry's one thread."""
        with self._lock:
            if self._stopped:
                raise MachinesStopped("the machines are stopped")
            if self._starter is not None and self._starter.alive():
                return self._starter
            if self._starter is not None:
                self._starter.stop()  # died: its machines died with it
            try:
                self._starter = self._spawner.submit(started_apart, MachineStarter.started).result()
            except RuntimeError as error:  # shut down: the machines are stopping
                raise MachinesStopped("the machines are stopped") from error
            return self._starter

    def _adopt(self, server_id: str, listened: Listened) -> None:
        for endpoint, listener in listened:
            self._listeners.adopt(server_id, listener, self._handler(server_id, endpoint))

    def _handler(self, server_id: str, endpoint: str) -> Handler:
        if self._gateway is not None:
            host, port = self._gateway.address.reached_at
            if endpoint == f"{host}:{port}":
                return self._gateway.relay
        if self._peers is not None:
            return partial(self._peers.serve_local, server_id)
        return socket.socket.close


def _close(listened: Listened) -> None:
    for _, listener in listened:
        listener.close()


def resident_script_hook(machines: Machines, server_id: str, way: Callable[[], MachineWay | None]) -> Hook:
    """heat-config's script hook for one server, its scripts entered into its resident machine
    (booted as `way()` says at each run); a run whose machine was stopped meanwhile (the server
    gone, the fleet stopping) is interrupted, not reported."""

    def script(deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]:
        try:
            machine = machines.machine(server_id, workdir.absolute(), way())
        except MachinesStopped as error:
            raise RunInterrupted(f"server {server_id}: {error}") from error
        except MachineFailed as error:
            return {
                "deploy_stdout": "",
                "deploy_stderr": f"sandbox: {error}",
                "deploy_status_code": NOT_STARTED,
            }

        # absolute: the keeper resolves it in the machine, from a directory of its own
        result = script_hook(deployment, workdir.absolute(), time_limit, start=machine.start)
        if machine.stopped:
            raise RunInterrupted(f"the machine of server {server_id} was stopped while its script ran")
        return result

    return script
