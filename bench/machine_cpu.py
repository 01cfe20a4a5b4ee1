"""What the whole machine's CPUs did over a span, from /proc/stat (Linux).

Some figures are bounded by the machine rather than the code: a thousand simulated servers'
machines booting beside the daemon can need more CPU than the machine's cores give within the
floor. `MachineCpu.now()` before and after a span says how busy every core was meanwhile, and how
much the host of a virtual machine took from it (`steal`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

BUSY_FIELDS = (1, 2, 3, 6, 7)  # user, nice, system, irq, softirq (after the leading "cpu")
IDLE_FIELDS = (4, 5)  # idle, iowait
STEAL_FIELD = 8


@dataclass(frozen=True)
class MachineCpu:
    """CPU seconds of every core together since boot: busy, idle, and taken by the host."""

    busy: float
    idle: float
    stolen: float

    @classmethod
    def now(cls) -> MachineCpu | None:
        """The machine's counters now (None: no /proc/stat here)."""
        try:
            with open("/proc/stat", encoding="ascii") as stat:
                fields = stat.readline().split()
        except OSError:
            return None
        if len(fields) <= STEAL_FIELD or fields[0] != "cpu":
            return None
        tick = os.sysconf("SC_CLK_TCK")

        def seconds(indexes: tuple[int, ...]) -> float:
            return sum(int(fields[index]) for index in indexes) / tick

        return cls(seconds(BUSY_FIELDS), seconds(IDLE_FIELDS), int(fields[STEAL_FIELD]) / tick)

    def spent_since(self, before: MachineCpu) -> tuple[float, float, float]:
        """From `before` to this: core-seconds busy, core-seconds there were, seconds stolen."""
        busy, idle = self.busy - before.busy, self.idle - before.idle
        stolen = self.stolen - before.stolen
        return busy, busy + idle + stolen, stolen

    def busy_since(self, before: MachineCpu) -> str:
        """`spent_since` as a sentence."""
        busy, whole, stolen = self.spent_since(before)
        share = busy / whole if whole else 0.0
        return (
            f"the machine's {os.cpu_count()} CPUs busy {busy:.1f} of {whole:.1f} core-seconds "
            f"({share:.0%}), {stolen:.1f} s taken by its host"
        )
