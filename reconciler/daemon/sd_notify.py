"""systemd's readiness protocol: datagrams to the socket named by `NOTIFY_SOCKET`.

The protocol is a few `KEY=value` lines in one datagram to a Unix socket (a path, or `@name` for the
abstract namespace). Outside systemd the variable is unset and every call is a no-op, so the daemon
runs the same under a terminal, a test or a unit.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Mapping
from dataclasses import dataclass

NOTIFY_SOCKET_VARIABLE = "NOTIFY_SOCKET"


@dataclass(frozen=True)
class Sent:
    """The datagram reached the socket."""


@dataclass(frozen=True)
class NotUnderSystemd:
    """No `NOTIFY_SOCKET`: nothing to tell."""


@dataclass(frozen=True)
class SendFailed:
    """The socket refused the datagram (systemd gone?); the daemon carries on."""

    reason: str


NotifyOutcome = Sent | NotUnderSystemd | SendFailed


def _socket_address(name: str) -> str:
    return "\0" + name[1:] if name.startswith("@") else name


class SystemdNotifier:
    """Sends sd_notify messages to one socket (or nowhere when there is none)."""

    def __init__(self, socket_name: str | None) -> None:
        self.socket_name = socket_name or None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] = os.environ) -> SystemdNotifier:
        return cls(environ.get(NOTIFY_SOCKET_VARIABLE))

    def notify(self, **fields: str) -> NotifyOutcome:
        """Send `KEY=value` lines, e.g. `notify(READY="1", STATUS="converged")`."""
        if self.socket_name is None:
            return NotUnderSystemd()
        message = "\n".join(f"{key}={value}" for key, value in fields.items()).encode("utf-8")
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.sendto(message, _socket_address(self.socket_name))
        except OSError as error:
            return SendFailed(reason=error.strerror or error.__class__.__name__)
        return Sent()

    def ready(self, status: str) -> NotifyOutcome:
        return self.notify(READY="1", STATUS=status)

    def status(self, status: str) -> NotifyOutcome:
        return self.notify(STATUS=status)

    def watchdog(self) -> NotifyOutcome:
        return self.notify(WATCHDOG="1")

    def stopping(self, status: str = "stopping") -> NotifyOutcome:
        return self.notify(STOPPING="1", STATUS=status)
