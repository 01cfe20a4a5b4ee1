"""An HTTP server whose accepted connections wait in a queue for a fixed set of handler threads.

`ThreadingHTTPServer` starts a thread per connection from its accept loop, and `Thread.start`
waits until the new thread runs: on a loaded host each accept then costs a scheduling round
trip, and a burst of agents connecting together (a fleet's signals after their scripts) queues
behind the accept loop for seconds. Here the accept loop only queues the connection; a handler
thread, already running, takes it. A kept-alive connection holds its thread until it is closed or
idle for `idle_timeout` seconds, so idle clients cannot hold every thread for long.
"""

from __future__ import annotations

import queue
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

Connection = tuple[socket.socket, Any]


class PooledHTTPServer(HTTPServer):
    """`handler_threads` daemon threads handle the connections the accept loop queues."""

    handler_threads = 64

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(address, handler)
        self._connections: queue.SimpleQueue[Connection | None] = queue.SimpleQueue()
        self._workers = [
            threading.Thread(target=self._work, name=f"http-handler-{number}", daemon=True)
            for number in range(self.handler_threads)
        ]
        for worker in self._workers:
            worker.start()

    def process_request(self, request: Any, client_address: Any) -> None:
        self._connections.put((request, client_address))

    def server_close(self) -> None:
        super().server_close()
        for _ in self._workers:
            self._connections.put(None)

    def _work(self) -> None:
        while (connection := self._connections.get()) is not None:
            request, client_address = connection
            try:
                self.finish_request(request, client_address)
            except Exception:
                self.handle_error(request, client_address)
            finally:
                self.shutdown_request(request)
