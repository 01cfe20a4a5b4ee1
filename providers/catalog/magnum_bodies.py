"""How Heat's Magnum properties become the bodies Magnum's API takes, and how a cluster template or
cluster Magnum shows reads back as those properties: one answer for every backend serving them.

As Heat writes them: a template's `image`, `flavor`, `master_flavor`, `keypair` and
`external_network` go as `<name>_id` (Magnum takes a name or an id for each), a cluster's
`cluster_template`, `flavor` and `master_flavor` likewise; the rest go as they are. Magnum keeps no
tags on a cluster, so the marker rides in a label (`reconciler_marker`) of both, which the cluster
drivers ignore; the labels read back leave it out. A change is a JSON patch of `replace` operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from providers.interface import LiveStatus, Marker
from providers.marker_text import METADATA_VALUE

MARKER_LABEL = "reconciler_marker"
# Heat's property -> the field Magnum's API takes, where the two differ.
TEMPLATE_FIELDS: Mapping[str, str] = MappingProxyType(
    {
        "image": "image_id",
        "flavor": "flavor_id",
        "master_flavor": "master_flavor_id",
        "keypair": "keypair_id",
        "external_network": "external_network_id",
    }
)
CLUSTER_FIELDS: Mapping[str, str] = MappingProxyType(
    {"cluster_template": "cluster_template_id", "flavor": "flavor_id", "master_flavor": "master_flavor_id"}
)
CLUSTER_STATUSES: Mapping[str, LiveStatus] = MappingProxyType(
    {
        "CREATE_COMPLETE": LiveStatus.READY,
        "UPDATE_COMPLETE": LiveStatus.READY,
        "RESUME_COMPLETE": LiveStatus.READY,
        "CHECK_COMPLETE": LiveStatus.READY,
        "CREATE_FAILED": LiveStatus.FAILED,
        "UPDATE_FAILED": LiveStatus.FAILED,
        "DELETE_FAILED": LiveStatus.FAILED,
    }
)
CLUSTER_ATTRIBUTES = ("name", "status", "status_reason", "master_addresses", "node_addresses",
                      "api_address", "coe_version", "container_version", "discovery_url", "stack_id",
                      "create_timeout", "keypair", "master_flavor_id", "flavor_id",
                      "cluster_template_id", "node_count", "master_count")  # fmt: skip


def marker_label(marker: Marker) -> str:
    return METADATA_VALUE.fitted(marker.tag)


def request_body(properties: Mapping[str, Any], fields: Mapping[str, str], marker: Marker) -> dict[str, Any]:
    """The create body: every property given, under Magnum's field name, the marker among the labels."""
    body = {fields.get(name, name): value for name, value in properties.items() if value is not None}
    if body.get("hidden") is False:
        del body["hidden"]  # sent only when set: older Magnum API versions refuse the field
    body["labels"] = {**(properties.get("labels") or {}), MARKER_LABEL: marker_label(marker)}
    if isinstance(body.get("tags"), list):
        body["tags"] = ",".join(str(tag) for tag in body["tags"])
    return body


def patch(
    properties: Mapping[str, Any],
    changed: Iterable[str],
    fields: Mapping[str, str],
    labels: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """The JSON patch of a change; `labels` are the live ones, whose marker the new labels keep."""
    operations = []
    for name in sorted(changed):
        value = properties.get(name)
        if name == "labels":
            value = {**(value or {}), **{k: v for k, v in labels.items() if k == MARKER_LABEL}}
        elif name == "tags" and isinstance(value, list):
            value = ",".join(str(tag) for tag in value)
        path = "/" + fields.get(name, name)
        operations.append(
            {"op": "remove", "path": path}
            if value is None
            else {"op": "replace", "path": path, "value": value}
        )
    return operations


def carries(body: Mapping[str, Any], marker: Marker) -> bool:
    return (body.get("labels") or {}).get(MARKER_LABEL) == marker_label(marker)


def live_properties(
    body: Mapping[str, Any], fields: Mapping[str, str], names: Iterable[str]
) -> dict[str, Any]:
    """The properties `names` as Magnum shows them (ids where the template may have given names)."""
    shown = {name: body.get(fields.get(name, name)) for name in names}
    shown["labels"] = {k: v for k, v in (body.get("labels") or {}).items() if k != MARKER_LABEL}
    if isinstance(shown.get("tags"), str):
        shown["tags"] = [tag for tag in str(shown["tags"]).split(",") if tag]
    return shown


def cluster_status(body: Mapping[str, Any]) -> LiveStatus:
    return CLUSTER_STATUSES.get(str(body.get("status")), LiveStatus.IN_PROGRESS)


def cluster_attributes(body: Mapping[str, Any]) -> dict[str, Any]:
    return {**{name: body.get(name) for name in CLUSTER_ATTRIBUTES}, "show": dict(body)}
