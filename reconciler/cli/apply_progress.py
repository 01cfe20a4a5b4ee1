"""What `reconciler apply` prints while it converges: counts per stack, as they change.

On a terminal one line per stack is redrawn in place, at most every `TERMINAL_EVERY` seconds; to
a pipe or a log, a plain line per stack whose counts changed, at most every `PLAIN_EVERY` seconds,
so a CI log shows progress without a line per pass. The final reports follow as before.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import IO

from reconciler.engine.report import StackReport

TERMINAL_EVERY = 0.5
PLAIN_EVERY = 5.0


def progress_line(report: StackReport) -> str:
    counts = report.counts
    return (
        f"{report.stack}: {report.status.value} (created {counts.created}, updated {counts.updated}, "
        f"replaced {counts.replaced}, deleted {counts.deleted}; {report.resources} resources)"
    )


class ApplyProgress:
    """Called after each engine pass with the stacks converging; prints when it is time."""

    def __init__(
        self,
        report: Callable[[str], StackReport],
        out: IO[str],
        *,
        terminal: bool,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.report = report
        self.out = out
        self.terminal = terminal
        self.monotonic = monotonic
        self.every = TERMINAL_EVERY if terminal else PLAIN_EVERY
        self._next = monotonic() + self.every
        self._shown: dict[str, str] = {}
        self._drawn = 0  # lines drawn in place last time (terminal)

    def __call__(self, stacks: Sequence[str]) -> None:
        now = self.monotonic()
        if now < self._next:
            return
        self._next = now + self.every
        lines = [progress_line(self.report(name)) for name in stacks]
        if self.terminal:
            self._redraw(lines)
            return
        for name, line in zip(stacks, lines, strict=True):
            if self._shown.get(name) != line:
                self._shown[name] = line
                self.out.write(line + "\n")
        self.out.flush()

    def _redraw(self, lines: list[str]) -> None:
        up = f"\x1b[{self._drawn}F" if self._drawn else ""
        self.out.write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
        self.out.flush()
        self._drawn = len(lines)

    def done(self) -> None:
        """Before the final reports: the in-place lines give way to them."""
        if self.terminal and self._drawn:
            self.out.write(f"\x1b[{self._drawn}F\x1b[J")
            self.out.flush()
            self._drawn = 0
