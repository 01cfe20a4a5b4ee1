"""Monasca's notification methods and alarm definitions (monitoring v2.0).

A notification method is a type (WEBHOOK, EMAIL, PAGERDUTY, kept in capitals whatever case it
came in), an address and a period (0, or 60 for a webhook only). An alarm definition has a unique
name and an expression Monasca parses: sub-expressions `function(metric{dimensions}, period)
operator threshold [times N]`, joined by and/or, each checked for that shape; its actions must
name notification methods that exist. Monasca answers what it cannot take with 422, a name
already taken with 409.

Limits: definitions are never evaluated here (no alarms are made from them, no notification is
sent); the expression's shape is checked, not its metrics.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import CloudError, Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

MONASCA_QUOTA_STATUS = 403
NOTIFICATION_TYPES = frozenset({"WEBHOOK", "EMAIL", "PAGERDUTY"})
SEVERITIES = frozenset({"LOW", "MEDIUM", "HIGH", "CRITICAL"})
ACTION_KEYS = ("alarm_actions", "ok_actions", "undetermined_actions")
DEFINITION_UPDATABLE = frozenset({"name", "description", "severity", "actions_enabled", *ACTION_KEYS})
NAME_LIMIT = 255
_METRIC = r"[A-Za-z_][\w.\-]*(?:\s*\{[^{}]*\})?"  # a metric name and its dimensions
SUB_EXPRESSION = re.compile(
    rf"(?:(?:avg|min|max|sum|count|last)\s*\(\s*{_METRIC}(?:\s*,\s*(?:deterministic\s*,\s*)?\d+)?\s*\)"
    rf"|{_METRIC})"  # a function of the metric (and a period), or the metric alone (its average)
    r"\s*(?:>=|<=|>|<|gte|lte|gt|lt)\s*-?\d+(?:\.\d+)?"  # the operator and threshold
    r"(?:\s+times\s+\d+)?",  # the periods it must hold for
    re.IGNORECASE,
)
JOINS = re.compile(r"\s+(?:and|or)\s+|\s*(?:&&|\|\|)\s*", re.IGNORECASE)


class Unprocessable(CloudError):
    status = 422
    code = "unprocessable_entity"


def check_expression(expression: Any) -> None:
    """Monasca's parse of an alarm expression, as far as its shape goes."""
    if not isinstance(expression, str) or not expression.strip():
        raise Unprocessable("Field 'expression' is required")
    for part in JOINS.split(expression):
        text = _balanced(part.strip())
        if not SUB_EXPRESSION.fullmatch(text):
            raise Unprocessable(f"Failed to parse expression: {expression!r} near {text!r}")


def _balanced(text: str) -> str:
    """A sub-expression with the grouping parentheses around it taken off, the function's kept."""
    while text.startswith("(") and text.count("(") > text.count(")"):
        text = text[1:].strip()
    while text.endswith(")") and text.count(")") > text.count("("):
        text = text[:-1].strip()
    return text


class NotificationMethods:
    collection = "notification_methods"
    quota_status = MONASCA_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        return {"id": world.new_id(), **checked_method(request), "created_at": world.timestamp()}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return {**body, **checked_method({**body, **request}), "updated_at": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        for definition in list(world.inventory("alarm_definitions")):
            if any(body["id"] in definition.get(key, ()) for key in ACTION_KEYS):
                actions = {key: [a for a in definition[key] if a != body["id"]] for key in ACTION_KEYS}
                world.add("alarm_definitions", {**definition, **actions})


def checked_method(request: Mapping[str, Any]) -> Body:
    name, address = request.get("name"), request.get("address")
    kind = str(request.get("type") or "").upper()
    if not isinstance(name, str) or not name or len(name) > 250:
        raise Unprocessable("Field 'name' is required and at most 250 characters")
    if kind not in NOTIFICATION_TYPES:
        raise Unprocessable(f"Invalid notification method type {request.get('type')!r}")
    if not isinstance(address, str) or not address or len(address) > 512:
        raise Unprocessable("Field 'address' is required and at most 512 characters")
    period = request.get("period") or 0
    if period not in (0, 60) or (period and kind != "WEBHOOK"):
        raise Unprocessable(f"Invalid period {period}: 0, or 60 for a webhook")
    return {"name": name, "type": kind, "address": address, "period": period}


class AlarmDefinitions:
    collection = "alarm_definitions"
    quota_status = MONASCA_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name or len(name) > NAME_LIMIT:
            raise Unprocessable(f"Field 'name' is required and at most {NAME_LIMIT} characters")
        if any(definition["name"] == name for definition in world.inventory("alarm_definitions")):
            raise Conflict(f"An alarm definition with the name {name} already exists")
        check_expression(request.get("expression"))
        return {
            "id": world.new_id(),
            "name": name,
            "description": request.get("description") or "",
            "expression": request["expression"],
            "deterministic": "deterministic" in str(request["expression"]).lower(),
            "match_by": list(request.get("match_by") or ()),
            "actions_enabled": request.get("actions_enabled", True),
            **checked_severity_and_actions(world, request),
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        unchangeable = sorted(set(request) - DEFINITION_UPDATABLE)
        if unchangeable:
            raise Unprocessable(f"Field(s) {', '.join(unchangeable)} cannot be changed")
        return {**body, **request, **checked_severity_and_actions(world, {**body, **request})}

    def delete(self, world: CloudWorld, body: Body) -> None:
        """Nothing is held elsewhere: no alarms are made from a simulated definition."""


def checked_severity_and_actions(world: CloudWorld, request: Mapping[str, Any]) -> Body:
    severity = str(request.get("severity") or "LOW").upper()
    if severity not in SEVERITIES:
        raise Unprocessable(f"Invalid severity {request.get('severity')!r}")
    methods = world.inventory("notification_methods")
    actions: dict[str, list[str]] = {}
    for key in ACTION_KEYS:
        actions[key] = [str(action) for action in request.get(key) or ()]
        unknown = [action for action in actions[key] if methods.get(action) is None]
        if unknown:
            raise Unprocessable(f"Invalid notification method id(s) {', '.join(unknown)} in {key}")
    return {"severity": severity, **actions}


BEHAVIOURS = (NotificationMethods(), AlarmDefinitions())
