"""The daemon's settings: built-in defaults, then `/etc/reconciler/reconciler.toml`, then flags.

TOML because the standard library reads it (`tomllib`) and it is what operators expect of a file
under `/etc`. Unknown keys and wrong types are errors naming the file and the key: a typo in a
service's configuration should stop it at start, not be silently ignored for months.
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DEFAULT_CONFIG_PATH = Path("/etc/reconciler/reconciler.toml")
DEFAULT_LISTEN = "127.0.0.1:8787"


class SettingsError(Exception):
    """The configuration file is unreadable or wrong; the message names the file and the key."""


@dataclass(frozen=True)
class DaemonSettings:
    """Everything `reconciler run` needs besides the repository's own `reconciler.yaml`."""

    repo: str = "."
    database: str | None = None  # None: a SQLite file in the state directory
    state_dir: str | None = None  # None: platformdirs' user state directory (systemd: StateDirectory)
    # Keys sealing hidden values at rest, newest first; None: systemd's `state-key` credential, else
    # a file made on first use (see reconciler.daemon.state_key).
    state_key_file: str | None = None
    workers: int = 1
    listen: str = DEFAULT_LISTEN
    fetch_interval: float = 30.0  # seconds between fetches of a remote URL
    notes_push_interval: float = 5.0  # seconds between pushes of pending notes to the remote
    engine_interval: float = 0.1  # longest wait between engine steps when nothing wakes it sooner
    lease_renew_interval: float = 5.0
    shutdown_deadline: float = 60.0  # SIGTERM: how long in-flight cloud calls may take to finish
    watchdog_allowance: float = 60.0  # a loop without progress for this long stops WATCHDOG=1
    sim_latency: str = ""  # the simulated cloud's call latency, e.g. "0.05" or "0.05,create=0.2"
    sim_regions: str = ""  # regions the simulated cloud serves besides RegionOne, e.g. "RegionTwo"
    # The shared secret push webhooks are signed with (None: /hooks/git takes any caller), or a
    # file holding it; else systemd's `webhook-secret` credential (reconciler.daemon.secrets_source).
    webhook_secret: str | None = field(default=None, repr=False)
    webhook_secret_file: str | None = None
    notify_url: str | None = None  # stack events are POSTed here as JSON
    notify_secret: str | None = field(default=None, repr=False)  # signs them (X-Signature: sha256=)
    notify_secret_file: str | None = None  # else systemd's `notify-secret` credential
    # Who may sign applied commits and approvals, pinned outside git (an allowed-signers file, an
    # OpenPGP keyring); unset: `verify:` of the last verified commit (reconciler.source.commit_trust).
    verify_allowed_signers: str | None = None
    verify_gpg_keyring: str | None = None
    log_level: str = "info"  # debug, info, warning, error
    log_format: str = "text"  # text (journald-friendly under systemd) or json (one object per line)

    # HOST:PORT of the agent API VMs poll and signal (see reconciler.daemon.agent_api); "": none
    agent_listen: str = ""
    agent_url: str = ""  # the agent API's address as VMs reach it; "": http://{agent_listen}

    def agent_base_url(self) -> str:
        """Where VMs reach the agent API: `agent_url`, else the listen address over http."""
        if self.agent_url:
            return self.agent_url
        if self.agent_listen:
            return f"http://{self.agent_listen}"
        return "http://agent-api-not-configured.invalid"

    def overridden(self, **flags: Any) -> DaemonSettings:
        """These settings with every flag that was given (not None) taking precedence."""
        return dataclasses.replace(self, **{key: value for key, value in flags.items() if value is not None})


_FIELDS = {setting.name: setting for setting in dataclasses.fields(DaemonSettings)}
_TYPES: Mapping[str, tuple[type, ...]] = {
    "repo": (str,),
    "database": (str,),
    "state_dir": (str,),
    "state_key_file": (str,),
    "workers": (int,),
    "listen": (str,),
    "sim_latency": (str,),
    "sim_regions": (str,),
    "agent_listen": (str,),
    "agent_url": (str,),
    "log_level": (str,),
    "webhook_secret": (str,),
    "webhook_secret_file": (str,),
    "notify_url": (str,),
    "notify_secret": (str,),
    "notify_secret_file": (str,),
    "log_format": (str,),
    "verify_allowed_signers": (str,),
    "verify_gpg_keyring": (str,),
}
CHOICES: Mapping[str, tuple[str, ...]] = {
    "log_level": ("debug", "info", "warning", "error"),
    "log_format": ("text", "json"),
}


def _checked(path: Path, key: str, value: Any) -> Any:
    if key not in _FIELDS:
        raise SettingsError(f"{path}: unknown key {key!r} (known: {', '.join(sorted(_FIELDS))})")
    expected = _TYPES.get(key, (int, float))
    if isinstance(value, bool) or type(value) not in expected:
        names = " or ".join(kind.__name__ for kind in expected)
        raise SettingsError(f"{path}: {key} must be a {names}, not {type(value).__name__}")
    if key == "workers" and int(value) < 1:
        raise SettingsError(f"{path}: workers must be at least 1")
    if key in CHOICES and value not in CHOICES[key]:
        raise SettingsError(f"{path}: {key} must be one of {', '.join(CHOICES[key])}, not {value!r}")
    return float(value) if expected == (int, float) else value


def load_settings(path: Path | None) -> DaemonSettings:
    """Defaults overlaid with the `[daemon]` table of `path` (absent default file: defaults)."""
    if path is None:
        if not DEFAULT_CONFIG_PATH.exists():
            return DaemonSettings()
        path = DEFAULT_CONFIG_PATH
    try:
        document = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise SettingsError(f"{path}: cannot be read: {error.strerror}") from None
    except tomllib.TOMLDecodeError as error:
        raise SettingsError(f"{path}: {error}") from None
    table = document.get("daemon", {})
    unknown_tables = sorted(set(document) - {"daemon"})
    if unknown_tables or not isinstance(table, dict):
        raise SettingsError(f"{path}: expected only a [daemon] table, found {unknown_tables or 'daemon'}")
    return DaemonSettings(**{key: _checked(path, key, value) for key, value in table.items()})
