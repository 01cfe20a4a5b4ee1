"""The agent API's listener: uvicorn serving `agent_http` on a thread and event loop of its own.

Why uvicorn: a fleet's agents poll on a new connection each time (os-collect-config does), and a
thread-per-connection server spends most of a poll starting the thread and parsing headers in
Python. uvicorn, the standard ASGI server, serves every connection from one event loop (uvloop's,
on libuv) and parses with httptools (llhttp, the parser of Node.js, in C); it also keeps
HTTP/1.1's details (keep-alive, pipelining, `Expect: 100-continue`, idle timeouts) that agents
and curl rely on.

The socket is bound here, before the loop starts, so port 0 resolves at once, a bind error reaches
the caller as `ListenError`, and connections made before the loop runs wait in the backlog.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import uvicorn

from providers.heat.agent_links import AgentLinks
from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_http import AgentHttp
from reconciler.daemon.http_endpoints import ListenError

# Threads for work that waits on the database: signals wait for their batch's commit, so this many
# signals can share one commit
BLOCKING_THREADS = 64
# a fleet of agents connects at once (a stack's servers booted together)
BACKLOG = 1024


def _listening_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=BACKLOG)


class AgentServer:
    """The agent API on its own thread; `address` is the bound (host, port), port 0 resolved.

    `links` are the URLs VMs are given: under `agent_url`, else under the bound address, known
    once bound (so port 0 works). `make_api` builds the application's `AgentApi` from them.
    """

    def __init__(
        self, host: str, port: int, make_api: Callable[[AgentLinks], AgentApi], agent_url: str = ""
    ) -> None:
        try:
            self._socket = _listening_socket(host, port)
        except OSError as error:
            raise ListenError(host, port, error) from None
        bound_host, bound_port = self.address
        self.links = AgentLinks(agent_url or f"http://{bound_host}:{bound_port}")
        self._blocking = ThreadPoolExecutor(BLOCKING_THREADS, thread_name_prefix="agent-api")
        config = uvicorn.Config(
            AgentHttp(make_api(self.links), self._blocking),
            http="httptools",
            loop="uvloop",
            lifespan="off",
            log_config=None,
            log_level="warning",
            access_log=False,  # a fleet of agents polling would drown the journal
            server_header=False,
            proxy_headers=False,  # VMs are no proxies: what they claim of addresses is not trusted
            headers=[("server", "reconciler-agent-api")],
            timeout_graceful_shutdown=5,
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="agent-api", daemon=True
        )

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._socket.getsockname()[:2]
        return str(host), int(port)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(timeout=10)
        self._blocking.shutdown(wait=False, cancel_futures=True)
        self._socket.close()
