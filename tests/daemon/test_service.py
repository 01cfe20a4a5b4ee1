"""The service loop with real signals, a real scheduler and a real NOTIFY_SOCKET."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
from pathlib import Path

import pytest

from reconciler.daemon.progress import ProgressMonitor, Stalled
from reconciler.daemon.sd_notify import SystemdNotifier
from reconciler.daemon.service import Loop, Service, watchdog_interval
from timekeeping.testing import SteppedClock

WAIT = 10.0  # upper bound for a condition the scheduler meets within milliseconds


class Recorder:
    """Loops and hooks that record what the service did, in order."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.passes = threading.Semaphore(0)
        self.slow_started = threading.Event()
        self.lock = threading.Lock()

    def note(self, event: str) -> None:
        with self.lock:
            self.events.append(event)

    def quick_pass(self) -> None:
        self.passes.release()

    def slow_pass(self) -> None:
        self.note("slow pass started")
        self.slow_started.set()
        threading.Event().wait(0.3)  # a cloud call in flight
        self.note("slow pass finished")


def test_sighup_reloads_and_sigterm_finishes_in_flight_work_then_stops(tmp_path: Path) -> None:
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(tmp_path / "notify.sock"))
    receiver.settimeout(WAIT)
    recorder = Recorder()
    clock = SteppedClock()
    service = Service(
        [Loop("fetch", 0.05, recorder.quick_pass), Loop("engine", 3600, recorder.slow_pass)],
        notifier=SystemdNotifier(str(tmp_path / "notify.sock")),
        progress=ProgressMonitor(clock, {"fetch": 60, "engine": 60}),
        status=lambda: "commit abc: 1/1 stacks converged",
        on_reload=lambda: recorder.note("reloaded"),
        on_stop=lambda deadline: recorder.note(f"stopped within {deadline:.0f}s"),
        shutdown_deadline=5,
    )
    service.install_signal_handlers()

    def operator() -> None:
        assert recorder.passes.acquire(timeout=WAIT)
        assert recorder.slow_started.wait(WAIT)
        os.kill(os.getpid(), signal.SIGHUP)
        while "reloaded" not in recorder.events:
            threading.Event().wait(0.01)
        service.wake("engine")  # a second slow pass starts ...
        threading.Event().wait(0.05)
        os.kill(os.getpid(), signal.SIGTERM)  # ... and SIGTERM arrives while it runs

    thread = threading.Thread(target=operator)
    thread.start()
    try:
        assert service.run() == 0
    finally:
        thread.join(WAIT)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGHUP, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)

    assert recorder.events[-2:] == ["slow pass finished", "stopped within 5s"]
    assert "reloaded" in recorder.events
    messages = []
    while True:
        try:
            messages.append(receiver.recv(4096).decode())
        except TimeoutError:
            break
        if messages[-1].startswith("STOPPING=1"):
            break
    receiver.close()
    assert messages[0] == "READY=1\nSTATUS=commit abc: 1/1 stacks converged"
    assert "RELOADING=1\nSTATUS=reloading" in messages
    assert messages[-1] == "STOPPING=1\nSTATUS=stopping: finishing work in flight"


def test_the_watchdog_interval_is_half_of_systemds() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "60000000"}) == 30.0
    assert watchdog_interval({"WATCHDOG_USEC": "60000000", "WATCHDOG_PID": "1"}) is None
    assert watchdog_interval({}) is None


def test_watchdog_pings_only_while_loops_make_progress(tmp_path: Path) -> None:
    receiver = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    receiver.bind(str(tmp_path / "notify.sock"))
    receiver.settimeout(WAIT)
    clock = SteppedClock()
    progress = ProgressMonitor(clock, {"engine": 30})
    service = Service(
        [],
        notifier=SystemdNotifier(str(tmp_path / "notify.sock")),
        progress=progress,
        status=lambda: "ok",
        on_reload=lambda: None,
        on_stop=lambda _deadline: None,
        shutdown_deadline=1,
        watchdog_every=0.02,
    )
    service.ping_watchdog()
    assert receiver.recv(4096) == b"WATCHDOG=1"
    assert receiver.recv(4096) == b"STATUS=ok"
    clock.advance(31)  # the engine loop has not completed a pass for 31 s
    service.ping_watchdog()
    assert receiver.recv(4096) == b"STATUS=ok"
    progress.made_progress("engine")
    service.ping_watchdog()
    assert receiver.recv(4096) == b"WATCHDOG=1"
    receiver.close()


def test_a_failing_loop_is_logged_once_and_makes_no_progress(caplog: pytest.LogCaptureFixture) -> None:
    failures = threading.Semaphore(0)

    def broken() -> None:
        failures.release()
        raise RuntimeError("the database is on fire")

    clock = SteppedClock()
    progress = ProgressMonitor(clock, {"broken": 30})
    service = Service(
        [Loop("broken", 0.01, broken)],
        notifier=SystemdNotifier(None),
        progress=progress,
        status=lambda: "ok",
        on_reload=lambda: None,
        on_stop=lambda _deadline: None,
        shutdown_deadline=5,
    )

    def operator() -> None:
        for _ in range(5):
            assert failures.acquire(timeout=WAIT)
        service.request_stop()

    thread = threading.Thread(target=operator)
    thread.start()
    with caplog.at_level(logging.INFO, logger="reconciler.daemon.service"):
        assert service.run() == 0
    thread.join(WAIT)

    logged = [record for record in caplog.records if "pass failed" in record.getMessage()]
    assert len(logged) == 1
    clock.advance(31)
    assert progress.health() == Stalled({"broken": 31})


def test_a_loop_whose_next_pass_is_due_before_its_interval_runs_then(tmp_path: Path) -> None:
    """Given a loop with an hour's interval that says after its first pass that the next is due at
    once (a peer's lease expired); then the second pass runs now, not an hour later."""
    passes = threading.Semaphore(0)
    due: list[float] = [0.0, 3600.0]  # due at once after the first pass, then at the interval

    service = Service(
        [Loop("leases", 3600, passes.release, lambda: due.pop(0) if due else 3600.0)],
        notifier=SystemdNotifier(None),
        progress=ProgressMonitor(SteppedClock(), {"leases": 7200}),
        status=lambda: "",
        on_reload=lambda: None,
        on_stop=lambda deadline: None,
        shutdown_deadline=5,
    )

    seen: list[bool] = []

    def operator() -> None:
        try:
            seen.extend(passes.acquire(timeout=WAIT) for _ in range(2))
        finally:
            service.request_stop()

    thread = threading.Thread(target=operator)
    thread.start()
    try:
        assert service.run() == 0
    finally:
        thread.join(WAIT)
    assert seen == [True, True]  # the second pass came from the early schedule, not the interval


def test_a_continuous_loop_runs_its_passes_back_to_back_until_the_service_stops() -> None:
    """Given a continuous loop (the engine's: each pass waits for calls by itself) with an hour's
    interval; then its passes follow one another at once, and the last one ends before `run` returns."""
    passes = threading.Semaphore(0)
    events: list[str] = []

    def engine_pass() -> None:
        events.append("pass")
        passes.release()
        threading.Event().wait(0.01)  # waiting for calls to come back

    service = Service(
        [Loop("engine", 3600, engine_pass, continuous=True)],
        notifier=SystemdNotifier(None),
        progress=ProgressMonitor(SteppedClock(), {"engine": 7200}),
        status=lambda: "",
        on_reload=lambda: None,
        on_stop=lambda deadline: events.append("stopped"),
        shutdown_deadline=5,
    )

    seen: list[bool] = []

    def operator() -> None:
        try:
            seen.extend(passes.acquire(timeout=WAIT) for _ in range(5))
            service.wake("engine")  # coalesces with the passes already running back to back
        finally:
            service.request_stop()

    thread = threading.Thread(target=operator)
    thread.start()
    try:
        assert service.run() == 0
    finally:
        thread.join(WAIT)
    assert seen == [True] * 5
    assert events[-1] == "stopped"
    assert events[-2] == "pass"
