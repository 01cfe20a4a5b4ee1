"""How Heat's OS::Zun::Container properties become Zun's create body, and how a container Zun
shows reads back: one answer for every backend that serves the type.

The marker rides in the container's labels (`reconciler_marker`). A container is Creating, then
Running (READY); Created is still on its way (Zun starts what Heat runs); Error is FAILED with
Zun's reason, and so is a container that stopped, as a running one is what the template asks for.
The `addresses` attribute is Heat's: Zun's map keyed by network id, with each network's name
added as a key beside its id, so `get_attr: [c, addresses, private, 0, addr]` works as in Heat.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker
from providers.marker_text import METADATA_VALUE

CONTAINER_TYPE = "OS::Zun::Container"
MARKER_KEY = "reconciler_marker"
PASSED = ("name", "image", "command", "cpu", "memory", "environment", "workdir", "image_pull_policy",
          "restart_policy", "interactive", "image_driver", "hints", "hostname", "security_groups",
          "mounts", "tty")  # fmt: skip
PATCHED = ("name", "cpu", "memory")
STATUSES = {
    "Running": LiveStatus.READY,
    "Creating": LiveStatus.IN_PROGRESS,
    "Created": LiveStatus.IN_PROGRESS,
}


def container_body(properties: Mapping[str, Any], marker: Marker) -> dict[str, Any]:
    """The create body without its networks (`nets`, which need the network ids)."""
    body: dict[str, Any] = {key: properties[key] for key in PASSED if properties.get(key) is not None}
    body["labels"] = {**(properties.get("labels") or {}), MARKER_KEY: METADATA_VALUE.fitted(marker.tag)}
    return body


def carries(container: Mapping[str, Any], marker: Marker) -> bool:
    return (container.get("labels") or {}).get(MARKER_KEY) == METADATA_VALUE.fitted(marker.tag)


def container_live(
    container: Mapping[str, Any], marker: Marker | None, network_names: Mapping[str, str]
) -> LiveResource:
    status = str(container.get("status"))
    addresses = dict(container.get("addresses") or {})
    for network_id, entries in list(addresses.items()):
        if network_names.get(network_id):
            addresses[network_names[network_id]] = entries
    reported: dict[str, Any] = {
        key: container.get(key) for key in ("name", "image", "cpu", "memory", "command")
    }
    reported["labels"] = {
        key: value for key, value in (container.get("labels") or {}).items() if key != MARKER_KEY
    }
    attributes = {"addresses": addresses, **{key: container.get(key) for key in ("name", "cpu", "memory")}}
    live_status = STATUSES.get(status, LiveStatus.FAILED)
    reason = "" if status in STATUSES else f"the container is {status}"
    if reason and container.get("status_reason"):
        reason += f": {container['status_reason']}"
    return LiveResource(
        str(container["uuid"]),
        CONTAINER_TYPE,
        live_status,
        reported,
        attributes,
        marker,
        status_reason=reason,
    )
