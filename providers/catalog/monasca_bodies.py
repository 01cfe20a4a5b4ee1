"""How Heat's Monasca properties become the bodies Monasca's API takes, and read back: one answer
for every backend serving OS::Monasca::Notification and AlarmDefinition.

Monasca keeps no tags. An unnamed notification or definition is given the physical name the
marker makes (`stack-resource-record`); a definition without a description carries the marker as
its description. Severity and notification types go in capitals, as Monasca keeps them, and read
back in the case Heat's allowed values have. A definition's actions are notification method ids.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.interface import Marker
from providers.marker_text import TextLimit, bounded_name

DESCRIPTION = TextLimit(255)
NOTIFICATION_KEYS = ("name", "type", "address", "period")
DEFINITION_KEYS = ("name", "description", "expression", "match_by", "severity", "alarm_actions",
                   "ok_actions", "undetermined_actions", "actions_enabled")  # fmt: skip
# What a definition may change in place; the rest replaces it, as Heat's schema says.
DEFINITION_UPDATABLE = frozenset({"name", "description", "severity", "alarm_actions", "ok_actions",
                                  "undetermined_actions", "actions_enabled"})  # fmt: skip


def physical_name(marker: Marker) -> str:
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}", 250)


def notification_body(properties: Mapping[str, Any], marker: Marker | None) -> dict[str, Any]:
    body = {key: properties.get(key) for key in NOTIFICATION_KEYS}
    body["type"] = str(body["type"] or "").upper()
    body["period"] = body["period"] or 0
    if not body["name"] and marker is not None:
        body["name"] = physical_name(marker)
    return body


def notification_properties(body: Mapping[str, Any]) -> dict[str, Any]:
    return {**{key: body.get(key) for key in NOTIFICATION_KEYS}, "type": str(body.get("type") or "").lower()}


def definition_body(properties: Mapping[str, Any], marker: Marker) -> dict[str, Any]:
    body = {key: properties.get(key) for key in DEFINITION_KEYS if properties.get(key) is not None}
    body["severity"] = str(body.get("severity") or "low").upper()
    body.setdefault("name", physical_name(marker))
    body.setdefault("description", marker_description(marker))
    return body


def definition_patch(properties: Mapping[str, Any], changed: frozenset[str]) -> dict[str, Any]:
    body = {key: properties.get(key) for key in changed & DEFINITION_UPDATABLE}
    if "severity" in body:
        body["severity"] = str(body["severity"] or "low").upper()
    return body


def definition_properties(body: Mapping[str, Any]) -> dict[str, Any]:
    shown = {key: body.get(key) for key in DEFINITION_KEYS}
    return {**shown, "severity": str(body.get("severity") or "").lower()}


def marker_description(marker: Marker) -> str:
    return DESCRIPTION.fitted(marker.tag)


def is_same(shown: Mapping[str, Any], body: Mapping[str, Any]) -> bool:
    """Whether a definition Monasca shows is the one `body` asks for: its name, expression and
    description (which carries the marker when the template gives none)."""
    return all(shown.get(key) == body.get(key) for key in ("name", "expression", "description"))
