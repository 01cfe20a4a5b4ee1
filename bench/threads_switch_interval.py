"""What Python's switch interval costs hundreds of threads that call, sleep and work under the GIL.

    python -m bench.threads_switch_interval
    python -m bench.threads_switch_interval --work-us 95 --intervals 0.005 0.02

The shape of the engine's provider calls on a slow cloud, without the engine or a cloud: `--threads`
threads share `--calls` calls; each call sleeps `--sleep` seconds (the cloud's latency, the GIL let
go) and then does `--work-us` microseconds of Python work (dictionary stores, calibrated once, GIL
held). For each switch interval the run reports wall time, user and system CPU, and voluntary
context switches of the process. A thread waiting for the GIL wakes once per interval to ask for it,
so with many threads waiting a short interval is many wake-ups: the reason
`reconciler.daemon.collector.tune_process` sets 20 ms for `reconciler run` and `reconciler apply`.
Intervals are run in turn, `--rounds` times, so that a change in the machine's load shows as such.
"""

from __future__ import annotations

import argparse
import resource
import sys
import threading
import time


def _busy(steps: int) -> None:
    table: dict[int, int] = {}
    for step in range(steps):
        table[step & 63] = step


def _steps_for(microseconds: float) -> int:
    """How many steps of `_busy` take `microseconds` on this machine, one thread, measured once."""
    probe = 200_000
    started = time.perf_counter()
    _busy(probe)
    per_step = (time.perf_counter() - started) / probe
    return max(1, int(microseconds / 1e6 / per_step))


def run_once(threads: int, calls: int, sleep: float, steps: int, interval: float) -> str:
    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    lock = threading.Lock()
    left = [calls]

    def caller() -> None:
        while True:
            with lock:
                if left[0] <= 0:
                    return
                left[0] -= 1
            time.sleep(sleep)
            _busy(steps)

    workers = [threading.Thread(target=caller) for _ in range(threads)]
    before, started = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_SELF)
    sys.setswitchinterval(previous)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return (
        f"switch interval {interval * 1000:g} ms: wall {wall:.2f} s, user {user:.2f} s, "
        f"system {system:.2f} s, voluntary context switches {after.ru_nvcsw - before.ru_nvcsw}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--threads", type=int, default=200)
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--sleep", type=float, default=0.05, help="seconds each call sleeps")
    parser.add_argument("--work-us", type=float, default=300.0, help="microseconds of work per call")
    parser.add_argument("--intervals", type=float, nargs="+", default=[0.005, 0.02])
    parser.add_argument("--rounds", type=int, default=3)
    arguments = parser.parse_args()
    steps = _steps_for(arguments.work_us)
    ideal = arguments.calls * arguments.work_us / 1e6
    print(
        f"{arguments.threads} threads, {arguments.calls} calls: sleep {arguments.sleep * 1000:g} ms, then "
        f"{arguments.work_us:g} µs of work ({ideal:.2f} s of CPU in all on one thread)"
    )
    for _ in range(arguments.rounds):
        for interval in arguments.intervals:
            print(" ", run_once(arguments.threads, arguments.calls, arguments.sleep, steps, interval))


if __name__ == "__main__":
    main()
