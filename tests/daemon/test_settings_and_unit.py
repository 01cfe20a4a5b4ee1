"""The daemon's settings file and the systemd unit that runs it."""

from __future__ import annotations

import configparser
import subprocess
from pathlib import Path

import pytest

from reconciler.daemon.settings import DaemonSettings, SettingsError, load_settings
from tests.system_tools import required_tool

ROOT = Path(__file__).resolve().parents[2]
UNIT = ROOT / "systemd" / "reconciler.service"
EXAMPLE = ROOT / "systemd" / "reconciler.toml"


def test_the_shipped_example_configuration_loads() -> None:
    settings = load_settings(EXAMPLE)
    assert settings.repo.startswith("https://")
    assert settings.listen == "127.0.0.1:8787"
    assert settings.fetch_interval == 30.0


def test_flags_override_the_file() -> None:
    settings = load_settings(EXAMPLE).overridden(workers=4, listen=None, database="sqlite:///x")
    assert (settings.workers, settings.listen, settings.database) == (4, "127.0.0.1:8787", "sqlite:///x")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[daemon]\nwrkers = 2\n", "unknown key 'wrkers'"),
        ("[daemon]\nworkers = 'two'\n", "workers must be a int, not str"),
        ("[daemon]\nworkers = 0\n", "workers must be at least 1"),
        ("[daemon]\nfetch_interval = true\n", "fetch_interval must be a int or float"),
        ("[daemon\n", "line 1"),
        ("[other]\nx = 1\n", "expected only a [daemon] table"),
    ],
)
def test_bad_settings_name_the_file_and_the_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "reconciler.toml"
    path.write_text(text)
    with pytest.raises(SettingsError) as error:
        load_settings(path)
    assert str(error.value).startswith(str(path))
    assert message in str(error.value)


def test_no_file_means_defaults(tmp_path: Path) -> None:
    path = tmp_path / "empty.toml"
    path.write_text("")
    assert load_settings(path) == DaemonSettings()


def unit_section() -> configparser.SectionProxy:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read(UNIT)
    return parser["Service"]


def test_the_unit_is_a_notify_service_with_a_watchdog() -> None:
    service = unit_section()
    assert service["Type"] == "notify"
    assert int(service["WatchdogSec"]) > 0
    assert service["ExecReload"].endswith("-HUP $MAINPID")
    assert service["KillSignal"] == "SIGTERM"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("DynamicUser", "yes"),
        ("ProtectSystem", "strict"),
        ("NoNewPrivileges", "yes"),
        ("PrivateTmp", "yes"),
        ("StateDirectory", "reconciler"),
        ("ProtectHome", "yes"),
        ("CapabilityBoundingSet", ""),
    ],
)
def test_the_unit_is_hardened(key: str, value: str) -> None:
    assert unit_section()[key] == value


def test_systemd_accepts_the_unit() -> None:
    required_tool("systemd-analyze")  # missing: skipped on a developer's machine, a failure under CI
    checked = subprocess.run(
        ["systemd-analyze", "verify", str(UNIT)], capture_output=True, text=True, check=False
    )
    complaints = [
        line
        for line in (checked.stdout + checked.stderr).splitlines()
        if line.strip() and "is not executable" not in line  # the binary is not installed here
    ]
    assert complaints == []
