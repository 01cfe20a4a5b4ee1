"""The host side of the sandbox's way to the agent API: a Unix socket relaying to the API's TCP port.

Inside a sandbox, `sandbox_relay` listens on the address VMs are given for the agent API
(`reached_at`, from `agent_url`) and carries each connection to this gateway's Unix socket; the
gateway carries it to where the agent API listens on the host (`served_at`). Nothing else is
forwarded: a connection through the gateway always ends at the agent API. A resident machine's
listener (`machine_listeners`) hands its connections to `relay` directly, with no socket between.

The socket lives in a directory of its own under the system's temporary directory, since a Unix
socket's path is limited to about 100 bytes.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import socket
import threading
from dataclasses import dataclass
from urllib.parse import urlsplit

from reconciler.agent.owned_directories import OwnedDirectory
from reconciler.agent.sandbox_relay import splice

LOG = logging.getLogger(__name__)
CONNECT_TIMEOUT = 10.0


@dataclass(frozen=True)
class AgentAddress:
    """Where the agent API is: the address VMs reach (`reached_at`), and where it listens here."""

    reached_at: tuple[str, int]
    served_at: tuple[str, int]

    @classmethod
    def of(cls, agent_url: str, listening: tuple[str, int]) -> AgentAddress | None:
        """From `agent_url` and the listener's bound address; None when `agent_url` names no
        IPv4 address a sandbox can stand in for (a host name other than localhost, IPv6)."""
        parts = urlsplit(agent_url)
        host = "127.0.0.1" if parts.hostname == "localhost" else parts.hostname or ""
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return None
        if address.version != 4 or address.is_unspecified:
            return None
        port = parts.port or (443 if parts.scheme == "https" else 80)
        bound_host, bound_port = listening
        local = "127.0.0.1" if bound_host in ("", "0.0.0.0") else bound_host
        return cls((host, port), (local, bound_port))


class AgentGateway:
    """A Unix socket whose every connection is relayed to the agent API; `start()` then `stop()`."""

    def __init__(self, address: AgentAddress) -> None:
        self.address = address
        self._directory = OwnedDirectory("agent-gw-")
        self.socket_path = str(self._directory.path / "api.sock")
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._listener.bind(self.socket_path)
        self._listener.listen(128)
        self._thread = threading.Thread(target=self._serve, name="agent-gateway", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting (connections under way finish on their own) and remove the socket."""
        with contextlib.suppress(OSError):
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self._thread.join(5)
        self._directory.remove()

    def _serve(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return  # stopped
            threading.Thread(target=self.relay, args=(client,), daemon=True).start()

    def relay(self, client: socket.socket) -> None:
        """Carry one connection of a sandbox to the agent API, until either end closes it."""
        try:
            upstream = socket.create_connection(self.address.served_at, timeout=CONNECT_TIMEOUT)
        except OSError as error:
            LOG.warning("the agent API did not take a sandbox's connection: %s", error)
            client.close()
            return
        upstream.settimeout(None)
        splice(client, upstream)
