"""A `clouds.yaml` entry that points the OpenStack tools at a served simulated cloud.

The password is a fixed placeholder: the simulated Keystone accepts any credentials, so the file
holds no secret. An existing file keeps its other entries. A cloud of several regions is entered
with all of them under `regions` (its home region first, the default): openstacksdk connects an
entry only to the regions it lists.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from providers.simulated.http.keystone import PROJECT_NAME, USER_NAME
from providers.simulated.settings import REGION

PLACEHOLDER_PASSWORD = "simulated"


def cloud_entry(url: str, regions: tuple[str, ...] = (REGION,)) -> dict[str, Any]:
    where: dict[str, Any] = {"region_name": regions[0]} if len(regions) == 1 else {"regions": list(regions)}
    return {
        "auth_type": "password",
        "auth": {
            "auth_url": f"{url}/identity/v3",
            "username": USER_NAME,
            "password": PLACEHOLDER_PASSWORD,
            "project_name": PROJECT_NAME,
            "user_domain_name": "Default",
            "project_domain_name": "Default",
        },
        **where,
        "identity_api_version": 3,
        "interface": "public",
    }


def write_clouds_yaml(path: Path, name: str, url: str, regions: tuple[str, ...] = (REGION,)) -> Path:
    """Add (or replace) the entry `name` of `path` so that it reaches the cloud served at `url`."""
    existing: dict[str, Any] = {}
    if path.exists():
        loaded = yaml.safe_load(path.read_text(encoding="utf-8"))
        if loaded is not None and not isinstance(loaded, dict):
            raise ValueError(f"{path}: a clouds.yaml must be a mapping with a 'clouds' key")
        existing = loaded or {}
    clouds = dict(existing.get("clouds") or {})
    clouds[name] = cloud_entry(url, regions)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({**existing, "clouds": clouds}, sort_keys=False), encoding="utf-8")
    return path
