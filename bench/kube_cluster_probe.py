"""How promptly the agent API answers while the cluster converges: a `/healthz` request on a new
connection every `every` seconds, as an agent's poll connects, timed from connect to answer.

`/healthz` is answered on the API's event loop with no thread and no database, so its time is what
every poll and signal waits before its own work starts: the loop's turn at the interpreter lock
among the process' threads.
"""

from __future__ import annotations

import http.client
import threading
import time

ANSWER_TIMEOUT = 30.0  # an agent's own wait for an answer


class AnswerProbe:
    """Times `/healthz` answers on a thread of its own, from `start()` to `stop()`."""

    def __init__(self, host: str, port: int, every: float = 0.5) -> None:
        self._host, self._port, self._every = host, port, every
        self._stopped = threading.Event()
        self._thread = threading.Thread(target=self._run, name="answer-probe", daemon=True)
        self.seconds: list[float] = []
        self.failed = 0

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread.is_alive():
            self._thread.join(ANSWER_TIMEOUT + 1)

    def _run(self) -> None:
        while not self._stopped.wait(self._every):
            started = time.perf_counter()
            connection = http.client.HTTPConnection(self._host, self._port, timeout=ANSWER_TIMEOUT)
            try:
                connection.request("GET", "/healthz")
                connection.getresponse().read()
                self.seconds.append(time.perf_counter() - started)
            except OSError:
                self.failed += 1
            finally:
                connection.close()

    def summary(self) -> str:
        if not self.seconds:
            return f"agent API answers: none ({self.failed} failed)"
        ordered = sorted(self.seconds)
        median = ordered[len(ordered) // 2] * 1000
        p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        return (
            f"agent API answers (/healthz every {self._every:g} s): {len(ordered)}, median {median:.0f} ms, "
            f"p99 {p99:.0f} ms, max {ordered[-1] * 1000:.0f} ms, {self.failed} failed"
        )
