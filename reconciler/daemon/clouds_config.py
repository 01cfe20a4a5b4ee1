"""A look at `clouds.yaml` before the OpenStack SDK reads it, so a broken one is named as such.

The SDK reads the first of `OS_CLIENT_CONFIG_FILE`, `./clouds.yaml`,
`~/.config/openstack/clouds.yaml` and `/etc/openstack/clouds.yaml` that exists, and quietly
skips one it cannot parse, which then reads as "Cloud prod was not found". Here the file it would
use is read first: unreadable, not YAML, without a `clouds` mapping, or without the cloud asked
for, the error names the file, the line when there is one, and what was expected.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

import yaml

CONFIG_VARIABLE = "OS_CLIENT_CONFIG_FILE"


class CloudsConfigError(ValueError):
    """The clouds.yaml the SDK would read cannot serve the cloud asked for."""


def candidates(environ: Mapping[str, str], cwd: Path, home: Path) -> list[Path]:
    """The files the SDK looks at, in its order."""
    given = [Path(environ[CONFIG_VARIABLE])] if environ.get(CONFIG_VARIABLE) else []
    return [
        *given,
        cwd / "clouds.yaml",
        home / ".config" / "openstack" / "clouds.yaml",
        Path("/etc/openstack/clouds.yaml"),
    ]


def check_clouds_yaml(
    cloud: str,
    environ: Mapping[str, str] = os.environ,
    cwd: Path | None = None,
    home: Path | None = None,
) -> Path | None:
    """The clouds.yaml that will serve `cloud`; None when there is none (`OS_*` variables may)."""
    files = candidates(environ, cwd or Path.cwd(), home or Path.home())
    if environ.get(CONFIG_VARIABLE) and not files[0].exists():
        raise CloudsConfigError(f"{CONFIG_VARIABLE}={files[0]}: no such file")
    path = next((file for file in files if file.exists()), None)
    if path is None:
        return None
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CloudsConfigError(f"{path}: cannot be read: {error.strerror}") from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" line {mark.line + 1}" if mark is not None else ""
        problem = getattr(error, "problem", None) or "not valid YAML"
        raise CloudsConfigError(f"{path}:{where}: not valid YAML: {problem}") from None
    clouds = document.get("clouds") if isinstance(document, dict) else None
    if not isinstance(clouds, dict):
        raise CloudsConfigError(f"{path}: expected a `clouds:` mapping of cloud names to their settings")
    if cloud not in clouds:
        known = ", ".join(sorted(str(name) for name in clouds)) or "none"
        raise CloudsConfigError(f"{path}: no cloud named {cloud!r} (it has: {known})")
    return path
