"""`agent_listen` and `agent_url` under `[daemon]`, and the URL VMs are given."""

from __future__ import annotations

from pathlib import Path

from reconciler.daemon.settings import DaemonSettings, load_settings


def test_the_settings_file_names_the_agent_listen_address_and_url(tmp_path: Path) -> None:
    path = tmp_path / "reconciler.toml"
    path.write_text('[daemon]\nagent_listen = "0.0.0.0:8788"\nagent_url = "http://10.0.0.2:8788"\n')
    settings = load_settings(path)
    assert (settings.agent_listen, settings.agent_base_url()) == ("0.0.0.0:8788", "http://10.0.0.2:8788")


def test_without_agent_url_vms_are_given_the_listen_address() -> None:
    assert DaemonSettings(agent_listen="192.0.2.1:8788").agent_base_url() == "http://192.0.2.1:8788"
