"""`reconciler sim serve` as a real process: it writes a clouds.yaml, serves the SDK, keeps its state."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import openstack
from click.testing import CliRunner
from openstack.config import OpenStackConfig

from reconciler.cli.main import cli

STARTUP_SECONDS = 120  # generous: the whole CLI is imported, and test runs share two cores


def start(clouds_yaml: Path, state: Path) -> subprocess.Popen[str]:
    command = [
        sys.executable, "-m", "reconciler.cli.main", "sim", "serve",
        "--clouds-yaml", str(clouds_yaml), "--name", "lab", "--state", str(state), "--time-to-active", "0",
    ]  # fmt: skip
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    said: list[str] = []
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        line = process.stderr.readline()
        said.append(line)
        if "serving at" in line:
            return process
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"reconciler sim serve did not start: {''.join(said)}")


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=STARTUP_SECONDS) == 0


def connect(clouds_yaml: Path) -> openstack.connection.Connection:
    config = OpenStackConfig(config_files=[str(clouds_yaml)], load_envvars=False)
    return openstack.connection.Connection(config=config.get_one(cloud="lab"))


def test_served_state_survives_a_restart(tmp_path: Path) -> None:
    """Given a served cloud with a state file, a network made through the SDK survives a restart."""
    clouds_yaml, state = tmp_path / "clouds.yaml", tmp_path / "cloud.json"
    process = start(clouds_yaml, state)
    try:
        connect(clouds_yaml).network.create_network(name="kept", tags=["marker"])
    finally:
        stop(process)
    process = start(clouds_yaml, state)
    try:
        names = [network.name for network in connect(clouds_yaml).network.networks(tags="marker")]
    finally:
        stop(process)
    assert names == ["kept"]


def test_bad_options_are_refused_with_the_reason() -> None:
    result = CliRunner().invoke(cli, ["sim", "serve", "--faults", "error_rate=0.1,colour=red"])
    assert result.exit_code == 2
    assert "unknown fault setting 'colour'" in result.output
    result = CliRunner().invoke(cli, ["sim", "serve", "--latency", "fast"])
    assert result.exit_code == 2
    assert "expected seconds" in result.output


def test_a_state_file_from_elsewhere_is_refused_by_name(tmp_path: Path) -> None:
    state = tmp_path / "cloud.json"
    state.write_text('{"version": 7}')
    result = CliRunner().invoke(cli, ["sim", "serve", "--state", str(state)])
    assert result.exit_code == 1
    assert "cloud.json: unknown simulated cloud state version 7" in result.output
