"""Not silent: one log line per stack state change, a log level and format, readable metrics.

Given the sample repository (observed every second) and a daemon on SQLite and the simulated
cloud, when stacks converge, a server is deleted behind the daemon's back and repaired, then the
`reconciler.events` log has one line per event with the stack, commit and counts, and `/metrics`
shows the repair, the last sync and the build.
"""

from __future__ import annotations

import json
import logging
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from reconciler import __version__
from reconciler.daemon.settings import SettingsError, load_settings
from tests.daemon.gitops_world import DaemonWorld, sample_repository
from tests.daemon.run_process import DaemonProcess
from tests.source.git_repos import commit_files

REPAIR_SECONDS = 60.0  # upper bound: observation every second, repairs at zero latency
READY_SECONDS = 60.0


def _fast_observation(path: Path) -> str:
    """Commit the sample with every stack observed each second; the commit's sha."""
    repo, _first = sample_repository(path)
    config = (path / "reconciler.yaml").read_text().replace("observe_interval: 60", "observe_interval: 1")
    return commit_files(repo, {"reconciler.yaml": config}, "Observe every second")


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[DaemonWorld, str]]:
    head = _fast_observation(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        yield daemon, head
    finally:
        daemon.close()


def _field(record: logging.LogRecord, name: str) -> Any:
    """A field the event carries on its log record."""
    return record.__dict__.get(name)


def _events(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.name == "reconciler.events"]


def test_each_converged_stack_is_logged_once_with_its_commit_and_counts(
    world: tuple[DaemonWorld, str], caplog: pytest.LogCaptureFixture
) -> None:
    daemon, head = world
    caplog.set_level(logging.INFO, logger="reconciler.events")
    daemon.follow()
    daemon.converge(["network", "app"], head)
    for _ in range(20):
        daemon.daemon.gitops.converge()  # settled passes add no event

    converged = [
        (_field(r, "stack"), _field(r, "commit"), _field(r, "counts")["created"])
        for r in _events(caplog)
        if _field(r, "event") == "converged"
    ]
    assert sorted(converged) == [("app", head, 3), ("network", head, 5)]  # app: a key pair, 2 nodes
    lines = [r.getMessage() for r in _events(caplog)]
    assert f"stack network converged at {head[:12]}: created 5" in lines


def test_a_drift_repair_is_logged_and_counted_in_the_metrics(
    world: tuple[DaemonWorld, str], caplog: pytest.LogCaptureFixture
) -> None:
    daemon, head = world
    caplog.set_level(logging.INFO, logger="reconciler.events")
    daemon.follow()
    daemon.converge(["network", "app"], head)
    cloud = daemon.daemon.clouds.simulated().cloud
    server = cloud.list("servers")[0]

    cloud.vanish("servers", server["id"])
    give_up = threading.Event()
    timer = threading.Timer(REPAIR_SECONDS, give_up.set)
    timer.start()
    try:
        while not any(_field(r, "event") == "drift_repaired" for r in _events(caplog)):
            daemon.daemon.gitops.converge()
            assert not give_up.wait(0.01), "no drift repair logged"
    finally:
        timer.cancel()

    repaired = next(r for r in _events(caplog) if _field(r, "event") == "drift_repaired")
    assert (_field(repaired, "stack"), _field(repaired, "commit")) == ("app", head)
    assert repaired.getMessage().startswith(f"stack app drift repaired at {head[:12]}: 1 (")
    families = list(text_string_to_metric_families(daemon.daemon.metrics.render().decode()))
    samples = {
        (sample.name, sample.labels.get("stack", "")): sample
        for family in families
        for sample in family.samples
    }
    by_type = {
        sample.labels["type"]: sample.value
        for family in families
        for sample in family.samples
        if sample.name == "reconciler_drift_repairs_total"
    }
    assert samples[("reconciler_stack_drift_repairs_total", "app")].value == 1
    assert ("reconciler_stack_drift_repairs_total", "network") not in samples  # none repaired: no series
    assert by_type == {"OS::Nova::Server": 1}
    assert samples[("reconciler_stack_last_sync_timestamp_seconds", "app")].value > 0
    assert samples[("reconciler_build_info", "")].labels["version"] == __version__


def test_log_level_and_format_are_settings_checked_by_name(tmp_path: Path) -> None:
    config = tmp_path / "reconciler.toml"
    config.write_text('[daemon]\nlog_level = "debug"\nlog_format = "json"\n')
    assert (load_settings(config).log_level, load_settings(config).log_format) == ("debug", "json")

    config.write_text('[daemon]\nlog_format = "yaml"\n')
    with pytest.raises(SettingsError, match=r"reconciler\.toml: log_format must be one of text, json"):
        load_settings(config)


def test_the_daemon_logs_json_lines_with_the_address_and_each_stack_event(tmp_path: Path) -> None:
    head = _fast_observation(tmp_path / "repo")
    daemon = DaemonProcess(
        [
            *("--repo", str(tmp_path / "repo"), "--state-dir", str(tmp_path / "state")),
            *("--listen", "127.0.0.1:0", "--log-format", "json", "--log-level", "info"),
        ],
        tmp_path,
        "json",
    )
    give_up = threading.Event()
    timer = threading.Timer(READY_SECONDS * 2, give_up.set)
    timer.start()
    try:
        daemon.wait_for("READY=1", READY_SECONDS)
        while {"network", "app"} - {
            line.get("stack") for line in _json_lines(daemon.output()) if line.get("event") == "converged"
        }:
            assert not give_up.wait(0.2), daemon.output()
        assert daemon.terminate() == 0
    finally:
        timer.cancel()
        daemon.close()

    lines = _json_lines(daemon.output())
    listening = next(line["message"] for line in lines if line["message"].startswith("listening on"))
    assert re.match(r"listening on http://127\.0\.0\.1:[1-9]\d*", listening)
    converged = {line["stack"]: line for line in lines if line.get("event") == "converged"}
    assert converged["network"]["commit"] == head
    assert converged["network"]["counts"]["created"] == 5
    assert converged["network"]["level"] == "info"


def _json_lines(text: str) -> list[dict[str, Any]]:
    """Every line of the daemon's output, each of which must be one JSON object."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]
