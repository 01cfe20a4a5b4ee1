"""The host's side of every resident machine's ways out: their listeners, served by one thread.

A resident machine hands its listening sockets to the host (`sandbox_listeners`): the agent API's
address, its neighbours' addresses, each bound inside its own network namespace. This thread
accepts on all of them (a thousand machines cost one thread and their sockets, no process each),
and gives each connection to the handler its listener was adopted with (the agent gateway's
relay, the peer gateway's routing) on a thread of its own, as the gateways serve theirs.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import threading
from collections.abc import Callable

SELECT_TIMEOUT = 0.5  # how soon `stop()` is noticed
Handler = Callable[[socket.socket], None]


class MachineListeners:
    """`start()`, `adopt` a machine's listeners, `drop` them when it goes, `stop()`."""

    def __init__(self) -> None:
        self._selector = selectors.DefaultSelector()
        self._owned: dict[str, list[socket.socket]] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._serve, name="machine-listeners", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def adopt(self, owner: str, listener: socket.socket, handler: Handler) -> None:
        """Serve `listener` (of the machine `owner`) with `handler` from now on."""
        listener.setblocking(False)
        with self._lock:
            if self._stopped.is_set():
                listener.close()
                return
            self._owned.setdefault(owner, []).append(listener)
            self._selector.register(listener, selectors.EVENT_READ, handler)

    def drop(self, owner: str) -> None:
        """Close the listeners of `owner` (its machine is gone)."""
        with self._lock:
            for listener in self._owned.pop(owner, []):
                with contextlib.suppress(KeyError, ValueError):
                    self._selector.unregister(listener)
                listener.close()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(5)
        with self._lock:
            owners = list(self._owned)
        for owner in owners:
            self.drop(owner)
        self._selector.close()

    def _serve(self) -> None:
        while not self._stopped.is_set():
            try:
                ready = self._selector.select(timeout=SELECT_TIMEOUT)
            except (OSError, ValueError, KeyError):
                continue  # a listener dropped meanwhile
            for key, _ in ready:
                with contextlib.suppress(OSError):
                    client, _ = key.fileobj.accept()  # type: ignore[union-attr]
                    client.setblocking(True)
                    threading.Thread(target=key.data, args=(client,), daemon=True).start()
