"""The daemon's Prometheus metrics, rendered by prometheus_client in its text format.

Gauges that describe the state store (stacks and resources by status, queue depth, lease holdings)
and the cloud calls made (by service, operation and outcome) are read at scrape time from a
snapshot function, so they are never stale and cost nothing between scrapes. Counters and the
histograms (a reconcile pass's duration, a generation's time to converge) are updated by the
daemon as things happen; drift repairs and failures are counted by resource type from the stack
events. Per-stack series (status with the commit the stack is at, last sync, drift repairs) come
from the worker running the stack, so a fleet scraped whole shows each stack once. The process
(CPU, memory, open files, start time), the interpreter and `reconciler_build_info` ride along.
"""

from __future__ import annotations

import platform
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from prometheus_client import (
    CollectorRegistry,
    Counter,
    GCCollector,
    Histogram,
    Info,
    PlatformCollector,
    ProcessCollector,
    generate_latest,
)
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from reconciler import __version__
from reconciler.daemon.stack_board import StackView

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
LATENCY_BUCKETS = (0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800)
PASS_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30)


@dataclass(frozen=True)
class StoreSnapshot:
    """What the state store says right now, for the gauges."""

    stacks_by_status: Mapping[str, int] = field(default_factory=dict)
    resources_by_status: Mapping[str, int] = field(default_factory=dict)
    work_queue_depth: int = 0
    shards_held: int = 0
    # (service, operation, outcome) -> calls
    cloud_calls: Mapping[tuple[str, str, str], int] = field(default_factory=dict)
    next_retries: Mapping[str, float] = field(default_factory=dict)  # stack -> its FAILED resources' next try


class _SnapshotCollector(Collector):
    def __init__(self, snapshot: Callable[[], StoreSnapshot]) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        current = self.snapshot()
        stacks = GaugeMetricFamily("reconciler_stacks", "Stacks by status", labels=["status"])
        for status, count in sorted(current.stacks_by_status.items()):
            stacks.add_metric([status], count)
        yield stacks
        resources = GaugeMetricFamily("reconciler_resources", "Resources by status", labels=["status"])
        for status, count in sorted(current.resources_by_status.items()):
            resources.add_metric([status], count)
        yield resources
        yield GaugeMetricFamily(
            "reconciler_work_queue_depth", "Work items waiting or running", value=current.work_queue_depth
        )
        yield GaugeMetricFamily(
            "reconciler_shards_held", "Shard leases this worker holds", value=current.shards_held
        )
        calls = CounterMetricFamily(
            "reconciler_cloud_calls",
            "Cloud API calls made, by service, operation and outcome",
            labels=["service", "operation", "outcome"],
        )
        for labels, count in sorted(current.cloud_calls.items()):
            calls.add_metric(list(labels), count)
        yield calls
        retries = GaugeMetricFamily(
            "reconciler_next_retry_timestamp_seconds",
            "When a stack's resources FAILED for a permanent cause are tried again (Unix time)",
            labels=["stack"],
        )
        for stack, when in sorted(current.next_retries.items()):
            retries.add_metric([stack], when)
        yield retries


class _StackCollector(Collector):
    """One series per stack this worker runs: its status and commit, last sync, drift repairs."""

    def __init__(self, views: Callable[[], Sequence[StackView]]) -> None:
        self.views = views

    def collect(self) -> Iterator[Metric]:
        views = self.views()
        status = GaugeMetricFamily(
            "reconciler_stack_status",
            "1 for each stack this worker runs, labelled with its status and the commit it is at",
            labels=["stack", "status", "commit"],
        )
        last_sync = GaugeMetricFamily(
            "reconciler_stack_last_sync_timestamp_seconds",
            "When the stack was last seen settled at its commit (Unix time)",
            labels=["stack"],
        )
        repairs = CounterMetricFamily(
            "reconciler_stack_drift_repairs", "Drifted resources repaired", labels=["stack"]
        )
        for view in views:
            status.add_metric([view.stack, view.status, view.commit or ""], 1)
            if view.last_sync is not None:
                last_sync.add_metric([view.stack], view.last_sync)
            if view.drift_repairs:  # a thousand series of 0 would double a scrape's cost; absent means 0
                repairs.add_metric([view.stack], view.drift_repairs)
        yield status
        yield last_sync
        yield repairs


def _no_stacks() -> Sequence[StackView]:
    return ()


class DaemonMetrics:
    """One registry per daemon (never the global one, so tests and workers stay independent)."""

    def __init__(
        self, snapshot: Callable[[], StoreSnapshot], stacks: Callable[[], Sequence[StackView]] = _no_stacks
    ) -> None:
        self.registry = CollectorRegistry(auto_describe=False)
        self.registry.register(_SnapshotCollector(snapshot))
        self.registry.register(_StackCollector(stacks))
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)
        self.build_info = Info("reconciler_build", "The running version", registry=self.registry)
        self.build_info.info({"version": __version__, "python": platform.python_version()})
        self.convergence_seconds = Histogram(
            "reconciler_convergence_seconds",
            "From a generation being submitted to its stack settling",
            buckets=LATENCY_BUCKETS,
            registry=self.registry,
        )
        self.reconcile_seconds = Histogram(
            "reconciler_reconcile_duration_seconds",
            "One reconcile pass: an engine step over the stacks this worker runs, and its notes",
            buckets=PASS_BUCKETS,
            registry=self.registry,
        )
        self.drift_repairs = Counter(
            "reconciler_drift_repairs",
            "Drifted resources repaired, by resource type",
            ["type"],
            registry=self.registry,
        )
        self.failures = Counter(
            "reconciler_resource_failures",
            "Resources a stack FAILED on (needing a person), by resource type",
            ["type"],
            registry=self.registry,
        )
        self.commits_seen = Counter(
            "reconciler_commits_seen", "Tracked commits the daemon picked up", registry=self.registry
        )
        self.notes_pushed = Counter(
            "reconciler_notes_pushes", "Notes pushes by outcome", ["outcome"], registry=self.registry
        )

    def render(self) -> bytes:
        """The Prometheus text exposition of every metric."""
        return generate_latest(self.registry)
