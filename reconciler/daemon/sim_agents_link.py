"""The wire between the daemon and its simulated agents' process: JSON objects, one per line, over a
Unix socket pair.

Either side `send`s a message, or `ask`s a question (the message gains `ask`: a number) and waits
for the other side's `answer` (`{"answer": n, "value": ...}`). `serve()` reads until the other end
closes, resolving answers and handing every other message to the function it is given; when the
other end is gone, every question still waiting fails with `LinkLost`.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any

Message = dict[str, Any]


class LinkLost(Exception):
    """The other side of the link is gone."""


class Link:
    """One end of the wire; `send`, `ask` and `answer` may be called from any thread."""

    def __init__(self, connection: socket.socket) -> None:
        self._connection = connection
        self._writing = threading.Lock()
        self._numbers = itertools.count(1)
        self._waiting: dict[int, Future[Any]] = {}
        self._waiting_lock = threading.Lock()
        self._lost = False

    def send(self, message: Mapping[str, Any]) -> bool:
        """Send one message; whether it went (False: the other side is gone)."""
        line = json.dumps(message, separators=(",", ":")).encode() + b"\n"
        try:
            with self._writing:
                self._connection.sendall(line)
        except OSError:
            return False
        return True

    def ask(self, question: Mapping[str, Any], timeout: float) -> Any:
        """Send `question` and wait up to `timeout` s for its answer's value."""
        number = next(self._numbers)
        answer: Future[Any] = Future()
        with self._waiting_lock:
            if self._lost:
                raise LinkLost
            self._waiting[number] = answer
        try:
            if not self.send({**question, "ask": number}):
                raise LinkLost
            return answer.result(timeout)
        finally:
            with self._waiting_lock:
                self._waiting.pop(number, None)

    def answer(self, question: Mapping[str, Any], value: Any) -> None:
        self.send({"answer": question["ask"], "value": value})

    def serve(self, on_message: Callable[[Message], None]) -> None:
        """Read until the other end closes (or `close()`), then fail the questions still waiting."""
        try:
            with self._connection.makefile("rb") as lines:
                for line in lines:
                    self._received(json.loads(line), on_message)
        except (OSError, ValueError):
            pass
        finally:
            with self._waiting_lock:
                self._lost = True
                waiting = list(self._waiting.values())
            for answer in waiting:
                with contextlib.suppress(Exception):
                    answer.set_exception(LinkLost())

    def _received(self, message: Message, on_message: Callable[[Message], None]) -> None:
        if "answer" not in message:
            on_message(message)
            return
        with self._waiting_lock:
            answer = self._waiting.get(int(message["answer"]))
        if answer is not None and not answer.done():
            answer.set_result(message.get("value"))

    def close_sending(self) -> None:
        """Tell the other side nothing more comes (it reads the end of the wire)."""
        with contextlib.suppress(OSError):
            self._connection.shutdown(socket.SHUT_WR)

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self._connection.shutdown(socket.SHUT_RDWR)
        self._connection.close()
