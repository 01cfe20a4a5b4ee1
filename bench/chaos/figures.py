"""The figures of one chaos run, and how they are printed and judged."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bench.chaos.audit import Audit


@dataclass(frozen=True)
class RunFigures:
    """What one run of one scenario measured; seconds are since the first daemon started."""

    scenario: str
    run: int
    resources: int  # servers, ports and volumes the newest commit wants
    seconds: float  # the whole run, set-up and audit included
    converged_after: float | None  # every root stack CONVERGED at the newest commit (None: never)
    change_to_converged: float | None
    audit: Audit
    stalls: Sequence[float]  # quiet spells longer than lease + renew + margin, not converged
    longest_quiet: float
    takeovers: Sequence[float | None]  # per lost daemon: until its shards had live holders
    joins: Sequence[float | None]  # per added daemon: until it held its fair share
    unexpected_exits: Sequence[str]
    pool_full_lines: int
    traceback_lines: int
    notes: Sequence[str] = field(default_factory=tuple)
    cloud_calls: Mapping[str, int] = field(default_factory=dict)  # calls the cloud served, by operation

    @property
    def passed(self) -> bool:
        return self.converged_after is not None and self.audit.clean and not self.stalls

    def line(self) -> str:
        converged = "never" if self.converged_after is None else f"{self.converged_after:.0f} s"
        change = (
            "" if self.change_to_converged is None else f" ({self.change_to_converged:.0f} s after change)"
        )
        takeovers = ", ".join("-" if t is None else f"{t:.1f}" for t in self.takeovers) or "none"
        joins = ", ".join("-" if t is None else f"{t:.1f}" for t in self.joins)
        stalls = ", ".join(f"{s:.0f} s" for s in self.stalls) or "0"
        return (
            f"{self.scenario} #{self.run}: {'PASS' if self.passed else 'FAIL'}; {self.resources} resources; "
            f"converged {converged}{change}; {self.audit.summary()}; stalls {stalls} "
            f"(longest quiet {self.longest_quiet:.0f} s); takeovers {takeovers} s"
            + (f"; fair share after {joins} s" if joins else "")
            + f"; exits {len(self.unexpected_exits)}; pool-full lines {self.pool_full_lines}; "
            f"traceback lines {self.traceback_lines}; run {self.seconds:.0f} s"
            + self._calls_text()
            + "".join(f"; {note}" for note in self.notes)
        )

    def _calls_text(self) -> str:
        calls = self.cloud_calls
        return f"; cloud calls: list {calls.get('list', 0)}, create {calls.get('create', 0)}" if calls else ""


def _spread(values: Sequence[float]) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.0f}"
    return f"{min(values):.0f}-{max(values):.0f}"


def table(runs: Sequence[RunFigures]) -> str:
    """A Markdown table, one row per scenario, the spread over its runs."""
    rows = [
        "| scenario | runs | passed | duplicates | same-marker | orphans | missing | stalls | "
        "takeover s (median) | converged s | run s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for scenario in dict.fromkeys(run.scenario for run in runs):
        of = [run for run in runs if run.scenario == scenario]
        takeovers = [t for run in of for t in run.takeovers if t is not None]
        converged = [run.converged_after for run in of if run.converged_after is not None]
        never = sum(1 for run in of if run.converged_after is None)
        median = f"{statistics.median(takeovers):.1f} ({len(takeovers)})" if takeovers else "-"
        cells = [
            scenario,
            str(len(of)),
            str(sum(run.passed for run in of)),
            ", ".join(str(run.audit.total_duplicates) for run in of),
            ", ".join(str(sum(run.audit.same_marker_duplicates.values())) for run in of),
            ", ".join(str(run.audit.total_orphans) for run in of),
            ", ".join(str(run.audit.total_missing) for run in of),
            ", ".join(str(len(run.stalls)) for run in of),
            median,
            _spread(converged) + (f" ({never} never)" if never else ""),
            _spread([run.seconds for run in of]),
        ]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows)
