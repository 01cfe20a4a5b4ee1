"""sd_notify against a real datagram socket named by NOTIFY_SOCKET (path and abstract namespace)."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.daemon.sd_notify import NotUnderSystemd, SendFailed, Sent, SystemdNotifier


@pytest.fixture(params=["path", "abstract"])
def notify_socket(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[tuple[str, socket.socket]]:
    """A bound datagram socket as systemd would hold, and the NOTIFY_SOCKET value naming it."""
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    if request.param == "path":
        name = str(tmp_path / "notify.sock")
        receiver.bind(name)
    else:
        name = f"@reconciler-test-{uuid.uuid4().hex}"
        receiver.bind("\0" + name[1:])
    receiver.settimeout(5)
    try:
        yield name, receiver
    finally:
        receiver.close()


def test_the_lifecycle_messages_arrive_as_systemd_reads_them(
    notify_socket: tuple[str, socket.socket],
) -> None:
    name, receiver = notify_socket
    notifier = SystemdNotifier.from_environment({"NOTIFY_SOCKET": name})

    assert notifier.ready("commit 1a2b3c4d: 2/2 stacks converged") == Sent()
    assert receiver.recv(4096) == b"READY=1\nSTATUS=commit 1a2b3c4d: 2/2 stacks converged"
    assert notifier.watchdog() == Sent()
    assert receiver.recv(4096) == b"WATCHDOG=1"
    assert notifier.stopping() == Sent()
    assert receiver.recv(4096) == b"STOPPING=1\nSTATUS=stopping"


def test_without_notify_socket_nothing_is_sent() -> None:
    assert SystemdNotifier.from_environment({}).ready("x") == NotUnderSystemd()


def test_a_vanished_socket_is_an_outcome_not_a_crash(tmp_path: Path) -> None:
    outcome = SystemdNotifier(str(tmp_path / "gone.sock")).watchdog()
    assert isinstance(outcome, SendFailed)
