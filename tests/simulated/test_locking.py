"""The simulated cloud's lock: one holder at a time, taken back after errors, never blocking."""

from __future__ import annotations

import threading
import time

import pytest

from providers.simulated.locking import RunnableLock


def test_many_threads_never_hold_it_together() -> None:
    lock = RunnableLock()
    holders = 0
    overlaps = 0
    total = 0

    def work() -> None:
        nonlocal holders, overlaps, total
        for _ in range(500):
            with lock:
                holders += 1
                time.sleep(0)  # hands the interpreter to the others mid-section
                if holders != 1:
                    overlaps += 1
                total += 1
                holders -= 1

    threads = [threading.Thread(target=work) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert overlaps == 0
    assert total == 16 * 500


def test_an_error_inside_the_section_releases_it() -> None:
    lock = RunnableLock()
    with pytest.raises(RuntimeError), lock:
        raise RuntimeError("boom")
    acquired = threading.Event()

    def take() -> None:
        with lock:
            acquired.set()

    thread = threading.Thread(target=take)
    thread.start()
    thread.join(timeout=5)
    assert acquired.is_set()
