"""The service around the daemon's loops: scheduling, signals, readiness, watchdog, orderly stop.

Every loop is one pass of work run by APScheduler on an interval (and at once when `wake` is called,
e.g. by the git hook or the ref watcher), except a `continuous` loop, whose passes wait by
themselves (the engine's loop waits for calls to come back) and run one after another on a thread
of their own. The service knows nothing of git or clouds: it runs
passes, records which loops made progress, and turns signals into a reload or a stop.

Signals only set flags; the main thread acts on them. SIGTERM: no new passes start, passes in
flight get until the deadline to finish, then `on_stop` (release leases, publish notes) runs and
`run()` returns 0. SIGHUP: `on_reload` runs between passes.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from types import FrameType

from apscheduler.schedulers.background import BackgroundScheduler

from reconciler.daemon.progress import Healthy, ProgressMonitor
from reconciler.daemon.sd_notify import SystemdNotifier

LOG = logging.getLogger(__name__)

WATCHDOG_LOOP = "watchdog"
STATUS_LOOP = "status"
STATUS_SECONDS = 2.0
EXIT_OK = 0
SIGNAL_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class Loop:
    """One of the daemon's loops: a pass run every `interval` seconds (and on `wake`).

    `due_in`, when given, says after each pass in how many seconds the next one is due; a pass due
    sooner than `interval` runs then (the lease loop ticks as soon as a peer's lease expires).
    A `continuous` loop's passes run back to back (each waits as long as it needs); `interval` is
    then the pause after a failed pass.
    """

    name: str
    interval: float
    run_pass: Callable[[], object]
    due_in: Callable[[], float] | None = None
    continuous: bool = False


def watchdog_interval(environ: dict[str, str] | os._Environ[str] = os.environ) -> float | None:
    """Half of systemd's `WATCHDOG_USEC` in seconds, or None when no watchdog is set for us."""
    usec = environ.get("WATCHDOG_USEC")
    pid = environ.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or (pid and pid != str(os.getpid())):
        return None
    return int(usec) / 2_000_000


class Service:
    """Runs `loops` until SIGTERM (or `request_stop`), keeping systemd informed."""

    def __init__(
        self,
        loops: Sequence[Loop],
        *,
        notifier: SystemdNotifier,
        progress: ProgressMonitor,
        status: Callable[[], str],
        on_reload: Callable[[], None],
        on_stop: Callable[[float], None],
        shutdown_deadline: float,
        watchdog_every: float | None = None,
    ) -> None:
        self.loops = {loop.name: loop for loop in loops}
        self.notifier = notifier
        self.progress = progress
        self.status = status
        self.on_reload = on_reload
        self.on_stop = on_stop
        self.shutdown_deadline = shutdown_deadline
        self.watchdog_every = watchdog_every
        self._scheduler = BackgroundScheduler(timezone=UTC)
        self._stop = threading.Event()
        self._reload = threading.Event()
        self._wake = threading.Event()
        self._requested: set[str] = set()
        self._last_status = ""
        self._failures: dict[str, str] = {}  # loop -> the error its last pass failed with
        self._term_received = False
        self._hup_received = False
        self._requests_lock = threading.Lock()
        self._threads: list[threading.Thread] = []  # one per continuous loop

    def _run_continuously(self, loop: Loop) -> None:
        """Passes back to back until stopped; a failed pass is logged and tried again after `interval`."""
        while not self._stop.is_set():
            try:
                loop.run_pass()
            except Exception as error:
                self._log_failure(loop.name, error)
                self._stop.wait(loop.interval)
                continue
            self._failures.pop(loop.name, None)
            self.progress.made_progress(loop.name)

    def _pass(self, loop: Loop) -> None:
        """One pass, and another straight after while `wake` was called during it (none is lost)."""
        while not self._stop.is_set():
            with self._requests_lock:
                self._requested.discard(loop.name)
            try:
                loop.run_pass()
            except Exception as error:
                self._log_failure(loop.name, error)
                return
            self._failures.pop(loop.name, None)
            self.progress.made_progress(loop.name)
            with self._requests_lock:
                if loop.name not in self._requested:
                    self._schedule_early(loop)
                    return

    def _schedule_early(self, loop: Loop) -> None:
        """Bring the loop's next pass forward to when it says it is due, if before its interval."""
        if loop.due_in is None or not self._scheduler.running or self._stop.is_set():
            return
        delay = max(0.0, loop.due_in())
        if delay < loop.interval:
            self._scheduler.modify_job(loop.name, next_run_time=datetime.now(UTC) + timedelta(seconds=delay))

    def _log_failure(self, name: str, error: Exception) -> None:
        """A failing pass is logged with its traceback once, not ten times a second while it repeats."""
        text = f"{error.__class__.__name__}: {error}"
        if self._failures.get(name) == text:
            LOG.debug("loop %s: pass failed again: %s", name, text)
            return
        self._failures[name] = text
        LOG.exception("loop %s: pass failed (repeats are logged at debug level)", name)

    def ping_watchdog(self) -> None:
        """WATCHDOG=1 when every loop made progress in time (withheld otherwise), and STATUS=."""
        health = self.progress.health()
        if isinstance(health, Healthy):
            self.notifier.watchdog()
        else:
            LOG.warning("loops without progress: %s; withholding WATCHDOG=1", ", ".join(sorted(health.loops)))
        self.notifier.status(self.status())

    def report_status(self) -> None:
        """STATUS= whenever it changed (without a watchdog, `ping_watchdog` does not run)."""
        status = self.status()
        if status != self._last_status:
            self._last_status = status
            self.notifier.status(status)

    def wake(self, name: str) -> None:
        """Run loop `name` as soon as possible (thread-safe; coalesces with a pass already due)."""
        if self.loops[name].continuous:
            return  # never idle for long: its passes run back to back
        with self._requests_lock:
            self._requested.add(name)
        if self._scheduler.running and not self._stop.is_set():
            self._scheduler.modify_job(name, next_run_time=datetime.now(UTC))

    def add_loop(self, loop: Loop) -> None:
        """One more loop (before `run`)."""
        self.loops[loop.name] = loop

    def reschedule(self, name: str, seconds: float) -> None:
        """Run loop `name` every `seconds` from now on (a reloaded setting)."""
        if self.loops[name].continuous:
            return  # its passes pace themselves
        if self._scheduler.running:
            self._scheduler.reschedule_job(name, trigger="interval", seconds=seconds)

    def request_stop(self) -> None:
        self._stop.set()
        self._wake.set()

    def request_reload(self) -> None:
        self._reload.set()
        self._wake.set()

    def _on_signal(self, number: int, _frame: FrameType | None) -> None:
        # Only plain assignments here: taking a lock (Event.set) from a handler can deadlock with
        # the main thread holding it. The main loop polls these flags.
        if number == signal.SIGHUP:
            self._hup_received = True
        else:
            self._term_received = True

    def install_signal_handlers(self) -> None:
        """SIGTERM and SIGINT stop, SIGHUP reloads (call from the main thread)."""
        for number in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            signal.signal(number, self._on_signal)

    def _start(self) -> None:
        for loop in self.loops.values():
            if loop.continuous:
                thread = threading.Thread(
                    target=self._run_continuously, args=[loop], name=f"loop-{loop.name}", daemon=True
                )
                self._threads.append(thread)
                continue
            self._scheduler.add_job(
                self._pass,
                "interval",
                args=[loop],
                seconds=loop.interval,
                id=loop.name,
                next_run_time=datetime.now(UTC),
                coalesce=True,
                max_instances=1,
                misfire_grace_time=None,
            )
        if self.watchdog_every is not None:
            self._scheduler.add_job(
                self.ping_watchdog, "interval", seconds=self.watchdog_every, id=WATCHDOG_LOOP, coalesce=True
            )
        else:
            self._scheduler.add_job(
                self.report_status, "interval", seconds=STATUS_SECONDS, id=STATUS_LOOP, coalesce=True
            )
        self._scheduler.start()
        for thread in self._threads:
            thread.start()

    def run(self) -> int:
        """Run until stopped; returns the exit status (0 after an orderly stop)."""
        self._start()
        self._last_status = self.status()
        self.notifier.ready(self._last_status)
        while not self._stop.is_set():
            # A bounded wait: a signal delivered to another thread only runs its Python handler
            # when the main thread next runs bytecode, so the main thread must wake up regularly.
            self._wake.wait(SIGNAL_POLL_SECONDS)
            self._wake.clear()
            self._take_signals()
            if self._reload.is_set() and not self._stop.is_set():
                self._reload.clear()
                self.notifier.notify(RELOADING="1", STATUS="reloading")
                self.on_reload()
                self.notifier.ready(self.status())
        return self._stop_in_order()

    def _take_signals(self) -> None:
        if self._term_received:
            self._stop.set()
        if self._hup_received:
            self._hup_received = False
            self._reload.set()

    def _stop_in_order(self) -> int:
        self.notifier.stopping("stopping: finishing work in flight")
        self._scheduler.pause()  # no new passes
        finisher = threading.Thread(target=self._scheduler.shutdown, kwargs={"wait": True}, daemon=True)
        finisher.start()
        finisher.join(self.shutdown_deadline)
        for thread in self._threads:  # each ends after the pass it is in
            thread.join(self.shutdown_deadline)
        if finisher.is_alive() or any(thread.is_alive() for thread in self._threads):
            LOG.warning("passes still running after %.0f s; stopping without them", self.shutdown_deadline)
        self.on_stop(self.shutdown_deadline)
        return EXIT_OK
