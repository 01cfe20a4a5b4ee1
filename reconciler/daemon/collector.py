"""The interpreter tuned for a converging process: process-wide choices, made here once.

The cyclic garbage collector. A worker holds large, long-lived graphs (definitions, records, a
simulated cloud's inventory) and allocates many short-lived objects per cloud call, so with the
default thresholds older-generation collections keep walking everything alive while all threads
wait. Freezing what is alive once the process is set up (it is never walked again) and raising the
first threshold spares that work; reference counting still frees acyclic garbage at once, only
cycles wait longer.

Loading a large template allocates millions of small objects that all stay alive; every pass of
the collector while they are made walks them again, and afterwards the first young passes would
walk all of them once more. `collector_paused` runs a load without collections and then moves
everything alive to the oldest generation (`gc.freeze` then `gc.unfreeze`), where only full
passes, as rare as the thresholds make them, look at it. The templates layer never touches the
collector itself: the daemon and the benchmarks wrap their loads.

Thread switching. The engine's provider calls run on hundreds of threads that each hold the
interpreter lock briefly between blocking calls, so they give it up on their own far more often
than any switch interval. A thread waiting for the lock still wakes every interval to ask for it;
a longer interval loses no responsiveness and saves most of those wake-ups and the contention on
the lock's mutex that comes with them (`bench.threads_switch_interval` measures it).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator
from contextlib import contextmanager

FIRST_GENERATION_THRESHOLD = 50_000  # allocations between young collections (Python's default: 700)
OLDER_GENERATIONS = (20, 10)  # young collections per middle one, middle ones per full one
SWITCH_INTERVAL = 0.02  # seconds a thread waits for the interpreter lock before asking for it


def tune_collector() -> None:
    """Freeze what is alive now and collect young objects less often; call once, after setup."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(FIRST_GENERATION_THRESHOLD, *OLDER_GENERATIONS)


def tune_process() -> None:
    """The collector tuned (`tune_collector`) and the switch interval set; call once, after setup."""
    tune_collector()
    sys.setswitchinterval(SWITCH_INTERVAL)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block (a template load) without cyclic collections; what it built is then moved to
    the oldest generation. Reference counting still frees everything dropped meanwhile."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.freeze()
            gc.unfreeze()
            gc.enable()
