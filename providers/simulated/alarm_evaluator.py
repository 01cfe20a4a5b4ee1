"""The simulated cloud's alarm evaluator: one round at a time on demand, or every `interval` seconds
on a thread of its own while the cloud is served.

A round reads the cloud's telemetry (the measures, and the events emitted since the last round),
evaluates every alarm under the cloud's lock at the cloud clock's time, and only then, with the lock
let go, sends the notifications owed, so a slow receiver never holds the cloud up. Tests step the
clock and call `evaluate()`; `reconciler sim serve` and `serve_in_thread` run `start(interval)`,
which evaluates every `interval` seconds of real time, as Aodh's `evaluation_interval` does.
"""

from __future__ import annotations

import logging
import threading

from providers.simulated.alarm_evaluation import evaluate_alarms
from providers.simulated.alarm_notifier import AlarmNotifier, Delivery
from providers.simulated.cloud import SimulatedCloud

LOG = logging.getLogger(__name__)
DEFAULT_INTERVAL = 60.0  # Aodh's default evaluation_interval


class AlarmEvaluator:
    def __init__(self, cloud: SimulatedCloud, notifier: AlarmNotifier | None = None) -> None:
        self.cloud = cloud
        self.notifier = notifier or AlarmNotifier()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._round = threading.Lock()  # one round at a time: an event is evaluated exactly once

    def evaluate(self) -> list[Delivery]:
        """One round: every enabled alarm evaluated now; the notifications sent, in order."""
        with self._round:
            telemetry = self.cloud.telemetry
            measures, events = telemetry.measures(), telemetry.take_events()
            owed = self.cloud.under_lock(lambda world: evaluate_alarms(world, measures, events))
            return self.notifier.deliver(owed)

    def start(self, interval: float = DEFAULT_INTERVAL) -> None:
        """Evaluate every `interval` seconds on a daemon thread until `stop()`."""
        if self._thread is not None:
            return
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._run, args=(interval,), name="simulated-alarm-evaluator", daemon=True
        )
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _run(self, interval: float) -> None:
        while not self._stop.wait(interval):
            try:
                self.evaluate()
            except Exception:
                LOG.exception("simulated cloud: an alarm evaluation round failed")
