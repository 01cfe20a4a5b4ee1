"""The HTTP port on a real socket: health verdicts, Prometheus text, the git hook, port 0."""

from __future__ import annotations

import threading
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.parser import text_string_to_metric_families

from reconciler.daemon.http_endpoints import Endpoints, HttpEndpoints, parse_listen
from reconciler.daemon.metrics import DaemonMetrics, StoreSnapshot
from reconciler.daemon.progress import ProgressMonitor
from timekeeping.testing import SteppedClock


class Running:
    def __init__(self) -> None:
        self.clock = SteppedClock()
        self.progress = ProgressMonitor(self.clock, {"fetch": 60, "engine": 30})
        self.snapshot = StoreSnapshot(
            stacks_by_status={"CONVERGED": 2, "FAILED": 1},
            resources_by_status={"READY": 14},
            work_queue_depth=3,
            shards_held=64,
            cloud_calls={("compute", "create", "ok"): 12, ("network", "create", "conflict"): 2},
        )
        self.metrics = DaemonMetrics(lambda: self.snapshot)
        self.hooks = threading.Event()
        self.server = HttpEndpoints(
            "127.0.0.1",
            0,
            Endpoints(health=self.progress.health, metrics=self.metrics.render, git_hook=self.hooks.set),
        )

    def url(self, path: str) -> str:
        host, port = self.server.address
        return f"http://{host}:{port}{path}"


@pytest.fixture
def running() -> Iterator[Running]:
    daemon = Running()
    daemon.server.start()
    try:
        yield daemon
    finally:
        daemon.server.stop()


def test_port_zero_binds_a_free_port(running: Running) -> None:
    assert running.server.address[1] > 0


def test_healthz_follows_loop_progress(running: Running) -> None:
    with urllib.request.urlopen(running.url("/healthz")) as response:
        assert response.status == 200
    running.clock.advance(45)
    running.progress.made_progress("fetch")
    with pytest.raises(urllib.error.HTTPError) as stalled:
        urllib.request.urlopen(running.url("/healthz"))
    assert stalled.value.code == 503
    assert b"engine 45s" in stalled.value.read()


def test_metrics_are_valid_prometheus_text(running: Running) -> None:
    running.metrics.convergence_seconds.observe(0.7)
    with urllib.request.urlopen(running.url("/metrics")) as response:
        text = response.read().decode()
    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }
    assert samples[("reconciler_stacks", (("status", "CONVERGED"),))] == 2
    assert samples[("reconciler_resources", (("status", "READY"),))] == 14
    assert samples[("reconciler_work_queue_depth", ())] == 3
    assert samples[("reconciler_shards_held", ())] == 64
    assert samples[("reconciler_cloud_calls_total", _labels("compute", "create", "ok"))] == 12
    assert samples[("reconciler_cloud_calls_total", _labels("network", "create", "conflict"))] == 2
    assert samples[("reconciler_convergence_seconds_count", ())] == 1
    assert samples[("reconciler_build_info", _build_labels(samples))] == 1
    assert samples[("process_cpu_seconds_total", ())] >= 0
    assert ("reconciler_reconcile_duration_seconds_count", ()) in samples


def _labels(service: str, operation: str, outcome: str) -> Labels:
    return (("operation", operation), ("outcome", outcome), ("service", service))


Labels = tuple[tuple[str, str], ...]


def _build_labels(samples: dict[tuple[str, Labels], float]) -> Labels:
    """The labels of the one `reconciler_build_info` sample: the version and Python it runs."""
    (labels,) = [labels for name, labels in samples if name == "reconciler_build_info"]
    assert {name for name, _value in labels} == {"version", "python"}
    return labels


def test_a_git_hook_wakes_the_fetch_loop(running: Running) -> None:
    request = urllib.request.Request(
        running.url("/hooks/git"), data=b'{"ref": "refs/heads/main"}', method="POST"
    )
    with urllib.request.urlopen(request) as response:
        assert response.status == 202
    assert running.hooks.is_set()


def test_unknown_paths_are_404(running: Running) -> None:
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(running.url("/nope"))
    assert missing.value.code == 404


@pytest.mark.parametrize(
    ("value", "expected"),
    [("127.0.0.1:8787", ("127.0.0.1", 8787)), ("[::1]:0", ("::1", 0)), ("0.0.0.0:9000", ("0.0.0.0", 9000))],
)
def test_listen_addresses_parse(value: str, expected: tuple[str, int]) -> None:
    assert parse_listen(value) == expected


@pytest.mark.parametrize("value", ["8787", "host:", ":80", "host:99999", "host:http"])
def test_bad_listen_addresses_name_the_problem(value: str) -> None:
    with pytest.raises(ValueError, match="--listen"):
        parse_listen(value)
