"""The documented systemd install, followed into a scratch root, and the unit systemd checks.

`make install` with every directory under a scratch root: the command lands where the installed
unit's ExecStart looks (systemd-analyze verify finds nothing to say), the settings and clouds.yaml
stay 0640 and reach the service as credentials, and the unit scores at most 2.0 in
`systemd-analyze security`.
"""

from __future__ import annotations

import configparser
import os
import stat
import subprocess
from pathlib import Path

import pytest

from reconciler.daemon.settings import load_settings
from tests.system_tools import required_tool

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "reconciler.service"
INSTALL_SECONDS = 900.0
SECURITY_LIMIT = 2.0

# systemd-analyze missing: skipped on a developer's machine, a failure under CI
needs_systemd_analyze = pytest.mark.usefixtures("systemd_analyze")


@pytest.fixture
def systemd_analyze() -> str:
    return required_tool("systemd-analyze")


def make_install(scratch: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            "make",
            "--no-print-directory",
            "-C",
            str(ROOT),
            "install",
            f"LIBDIR={scratch}/opt/reconciler",
            f"BINDIR={scratch}/usr/local/bin",
            f"UNITDIR={scratch}/etc/systemd/system",
            f"CONFDIR={scratch}/etc/reconciler",
            *extra,
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )


def service_section(unit: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(unit)
    return parser["Service"]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@needs_systemd_analyze
def test_make_install_puts_the_command_where_the_unit_looks_and_systemd_accepts_it(tmp_path: Path) -> None:
    installed = make_install(tmp_path, "PIP_INSTALL_OPTIONS=--no-deps")  # the dependencies: the slow test
    assert installed.returncode == 0, installed.stdout + installed.stderr
    unit = tmp_path / "etc" / "systemd" / "system" / "reconciler.service"
    service = service_section(unit)

    command = Path(service["ExecStart"].split()[0])
    assert command == tmp_path / "usr" / "local" / "bin" / "reconciler"
    assert os.access(command, os.X_OK)
    assert f"{tmp_path}/opt/reconciler/bin/python -m reconciler.cli.main" in command.read_text()
    verified = subprocess.run(
        ["systemd-analyze", "verify", str(unit)], capture_output=True, text=True, check=False
    )
    assert verified.returncode == 0 and not (verified.stdout + verified.stderr).strip(), verified.stderr

    config = tmp_path / "etc" / "reconciler"
    assert mode(config) == 0o750
    assert mode(config / "reconciler.toml") == 0o640 and mode(config / "clouds.yaml") == 0o640
    credentials = unit.read_text()
    assert f"LoadCredential=reconciler.toml:{config}/reconciler.toml" in credentials
    assert f"LoadCredential=clouds.yaml:{config}/clouds.yaml" in credentials
    assert "--config %d/reconciler.toml" in service["ExecStart"]
    assert load_settings(config / "reconciler.toml").state_dir == "/var/lib/reconciler"


@pytest.mark.slow
def test_the_installed_command_runs(tmp_path: Path) -> None:
    installed = make_install(tmp_path)
    assert installed.returncode == 0, installed.stdout + installed.stderr

    ran = subprocess.run(
        [str(tmp_path / "usr" / "local" / "bin" / "reconciler"), "--version"],
        capture_output=True,
        text=True,
        check=False,
    )

    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.startswith("reconciler, version")


@needs_systemd_analyze
def test_the_unit_scores_at_most_2_in_systemd_analyze_security() -> None:
    scored = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", str(UNIT)],
        capture_output=True,
        text=True,
        check=False,
    )
    overall = next(line for line in scored.stdout.splitlines() if "Overall exposure level" in line)

    assert float(overall.split(":")[1].split()[0]) <= SECURITY_LIMIT, scored.stdout


def test_the_shipped_settings_name_the_units_state_directory() -> None:
    settings = load_settings(ROOT / "systemd" / "reconciler.toml")
    service = service_section(UNIT)
    assert service["StateDirectory"] == "reconciler"
    assert settings.state_dir == "/var/lib/reconciler"
