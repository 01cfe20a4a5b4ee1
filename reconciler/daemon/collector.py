"""The interpreter tuned for a converging process: process-wide choices, made here once.

The cyclic garbage collector. A worker holds large, long-lived graphs (definitions, records, a
simulated cloud's inventory) and allocates many short-lived objects per cloud call. With the
default first-generation threshold of 700 allocations the collector runs about a thousand times
while 10,000 servers converge, and every older-generation collection walks everything alive while
all threads wait (`bench.engine_cloud_latency` measured 2.5 to 3.5 s of a 6.6 to 7.5 s CPU
budget). Freezing what is alive once the process is set up (it is never walked again) and raising
the first threshold cut that to about 0.4 s. Reference counting still frees acyclic garbage at
once; only cycles wait longer.

Loading a large template allocates millions of small objects that all stay alive; every pass of
the collector while they are made walks them again, and afterwards the first young passes would
walk all of them once more. `collector_paused` runs a load without collections and then moves
everything alive to the oldest generation (`gc.freeze` then `gc.unfreeze`), where only full
passes, as rare as the thresholds make them, look at it. The templates layer never touches the
collector itself: the daemon and the benchmarks wrap their loads.

Thread switching. The engine's provider calls run on hundreds of threads that each hold the
interpreter lock briefly between blocking calls. A thread waiting for the lock wakes every switch
interval to ask for it (Python's default: 5 ms); with a hundred threads waiting, those wake-ups
alone are tens of thousands of context switches a second, each contending for the lock's mutex
with the thread that holds it. Threads here give the lock up on their own far more often than
that, so a 20 ms interval loses no responsiveness and cuts those wake-ups to about a third
(`bench.threads_switch_interval`: 200 threads doing 300 µs of work per 50 ms call, 126,000 to 154,000
context switches at 5 ms against 41,000 to 54,000 at 20 ms, system CPU about halved; the
10,000-server latency figure about 0.4 s lower in runs with little time stolen by the hypervisor).
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
