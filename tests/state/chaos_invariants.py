"""The invariants the chaos test checks, from the workers' logs and from the database.

1. One holder per epoch: every (shard, epoch) appears in the ticks of one worker only.
2. No two current holders at once: for each shard, the time during which a worker could act at an
   epoch (from the start of the step that acquired or renewed it to its expiry minus the safety
   margin) ends before the next epoch's first step began.
3. Fencing: no fenced write that began after a newer epoch was acquired succeeded, and in the
   database each shard's marker records carry non-decreasing epochs in commit order.
4. Work: every enqueued item is done, none was completed twice by the workers' accounts, and none
   is left claimed or ready.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from state.store import Store
from state.work_queue import WorkStatus
from tests.state.chaos_worker import CHAOS_SETTINGS, chaos_stack


@dataclass
class ChaosReport:
    """What the run did and what was checked; `violations` empty means every invariant held."""

    facts: dict[str, Any] = field(default_factory=dict)
    violations: list[str] = field(default_factory=list)

    def render(self) -> str:
        lines = ["chaos run:"]
        lines += [f"  {name}: {value}" for name, value in self.facts.items()]
        lines += [
            "  invariants: " + ("all held" if not self.violations else f"{len(self.violations)} VIOLATED")
        ]
        lines += [f"    - {violation}" for violation in self.violations[:20]]
        return "\n".join(lines)


def read_events(paths: Iterable[Path]) -> list[dict[str, Any]]:
    """Every complete JSON line of the logs (a killed worker's last, partial line is skipped)."""
    events: list[dict[str, Any]] = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                events.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return events


@dataclass
class _EpochSpan:
    """When a worker could act at an epoch: from just after the step that acquired it, until it
    dropped the shard (the start of the step that handed it back or lost it) or its expiry minus
    the safety margin, whichever came first."""

    worker: str
    start: float
    until: float
    dropped: float | None = None

    @property
    def end(self) -> float:
        return self.until if self.dropped is None else min(self.until, self.dropped)


def _epoch_spans(events: list[dict[str, Any]], report: ChaosReport) -> dict[int, dict[int, _EpochSpan]]:
    spans: dict[int, dict[int, _EpochSpan]] = defaultdict(dict)
    ticks_by_worker: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for event in events:
        if event["kind"] == "tick":
            ticks_by_worker[event["worker"]].append(event)
    for worker, ticks in ticks_by_worker.items():
        in_hand: set[tuple[int, int]] = set()
        for tick in sorted(ticks, key=lambda event: event["began"]):
            listed = {(shard, epoch) for shard, epoch, _until in tick["held"]}
            for shard, epoch in in_hand - listed:
                dropped = spans[shard][epoch]
                dropped.dropped = tick["began"] if dropped.dropped is None else dropped.dropped
            for shard, epoch, until in tick["held"]:
                span = spans[shard].get(epoch)
                if span is None:
                    spans[shard][epoch] = _EpochSpan(worker, tick["at"], until - tick["margin"])
                elif span.worker != worker:
                    report.violations.append(
                        f"shard {shard} epoch {epoch} held by {span.worker} and {worker}"
                    )
                else:
                    span.until = max(span.until, until - tick["margin"])
            in_hand = listed
    return spans


def _check_leases(spans: dict[int, dict[int, _EpochSpan]], report: ChaosReport) -> None:
    takeovers = 0
    for shard, by_epoch in sorted(spans.items()):
        epochs = sorted(by_epoch)
        takeovers += len(epochs) - 1
        for earlier, later in itertools.pairwise(epochs):
            old, new = by_epoch[earlier], by_epoch[later]
            if old.end > new.start:
                report.violations.append(
                    f"shard {shard}: epoch {earlier} ({old.worker}) could act until {old.end:.3f}, "
                    f"after epoch {later} ({new.worker}) began at {new.start:.3f}"
                )
    report.facts["shards seen held"] = len(spans)
    report.facts["epochs handed over (acquisitions after the first)"] = takeovers


def _check_fenced_writes(
    events: list[dict[str, Any]], spans: dict[int, dict[int, _EpochSpan]], store: Store, report: ChaosReport
) -> None:
    writes = [event for event in events if event["kind"] == "write"]
    accepted = [write for write in writes if write["ok"]]
    report.facts["fenced writes accepted"] = len(accepted)
    report.facts["fenced writes rejected with StaleLease"] = len(writes) - len(accepted)
    for write in accepted:
        for epoch, span in spans.get(write["shard"], {}).items():
            if epoch > write["epoch"] and span.start < write["t_before"]:
                report.violations.append(
                    f"write on shard {write['shard']} at stale epoch {write['epoch']} "
                    f"accepted after epoch {epoch} began"
                )
    checked = 0
    for shard in range(CHAOS_SETTINGS.shard_count):
        epochs = [record.attributes["epoch"] for record in store.read_records(chaos_stack(shard))]
        checked += len(epochs)
        if epochs != sorted(epochs):
            report.violations.append(f"shard {shard}: marker epochs out of order in the database: {epochs}")
    report.facts["marker records checked in the database"] = checked


def _check_work(events: list[dict[str, Any]], enqueued: int, store: Store, report: ChaosReport) -> None:
    completions: dict[int, int] = defaultdict(int)
    not_held = 0
    for event in events:
        if event["kind"] == "completed":
            for item_id in event["ids"]:
                completions[item_id] += 1
            not_held += len(event["not_held"])
    twice = [item_id for item_id, count in completions.items() if count > 1]
    if twice:
        report.violations.append(f"{len(twice)} work items completed more than once, e.g. {twice[:5]}")
    counts = store.work_counts().by_status
    done = counts.get(WorkStatus.DONE.value, 0)
    if done != enqueued or sum(counts.values()) != enqueued:
        report.violations.append(f"work items: {enqueued} enqueued but statuses are {counts}")
    report.facts["work items enqueued"] = enqueued
    report.facts["work items done in the database"] = done
    report.facts["completions logged (a killed worker may die before logging)"] = len(completions)
    report.facts["completions refused (item reclaimed from a paused worker)"] = not_held
    report.facts["items claimed more than once (reclaimed)"] = sum(
        1 for event_ids in _claims(events).values() if event_ids > 1
    )


def _claims(events: list[dict[str, Any]]) -> dict[int, int]:
    claims: dict[int, int] = defaultdict(int)
    for event in events:
        if event["kind"] == "claimed":
            for item_id in event["ids"]:
                claims[item_id] += 1
    return claims


def check_invariants(
    log_paths: Iterable[Path], store: Store, *, enqueued: int, facts: dict[str, Any]
) -> ChaosReport:
    """Check every invariant; the report lists what was checked and any violation."""
    report = ChaosReport(facts=dict(facts))
    events = read_events(log_paths)
    report.facts["log events"] = len(events)
    spans = _epoch_spans(events, report)
    _check_leases(spans, report)
    _check_fenced_writes(events, spans, store, report)
    _check_work(events, enqueued, store, report)
    return report
