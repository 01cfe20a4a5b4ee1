"""Aodh's alarms (alarming v2): one collection of alarms of every type Heat writes, validated as
Aodh validates them, each holding its evaluation state.

An alarm body is what Aodh's API shows (`alarm_id`, `type`, one `<type>_rule`, actions, `state`,
`state_reason`, ...); `id` (the collection's key) and the `_`-prefixed fields (consecutive breaching
evaluations) are the model's own and never shown. Names are unique per project (409, as Aodh).
How alarms change state is `alarm_evaluation`'s business; this module only stores them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

INSUFFICIENT_DATA, OK, ALARM = "insufficient data", "ok", "alarm"
STATES = (OK, ALARM, INSUFFICIENT_DATA)
# alarm type -> the key of its rule in the body, and the rule keys Aodh requires
RULES: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "threshold": ("threshold_rule", ("meter_name", "threshold")),
    "gnocchi_resources_threshold": (
        "gnocchi_resources_threshold_rule",
        ("metric", "resource_id", "resource_type", "threshold"),
    ),
    "gnocchi_aggregation_by_metrics_threshold": (
        "gnocchi_aggregation_by_metrics_threshold_rule",
        ("metrics", "threshold"),
    ),
    "gnocchi_aggregation_by_resources_threshold": (
        "gnocchi_aggregation_by_resources_threshold_rule",
        ("metric", "resource_type", "query", "threshold"),
    ),
    "event": ("event_rule", ()),
    "composite": ("composite_rule", ()),
}
SEVERITIES = ("low", "moderate", "critical")
OPERATORS = ("lt", "le", "eq", "ne", "ge", "gt")
ACTION_KEYS = ("alarm_actions", "ok_actions", "insufficient_data_actions")
DEFAULTS: Mapping[str, Any] = {
    "description": "",
    "enabled": True,
    "severity": "low",
    "repeat_actions": False,
    "time_constraints": [],
    **{key: [] for key in ACTION_KEYS},
}
STATE_FIELDS = frozenset({"state", "state_reason"})
SETTABLE = frozenset(
    {"name", "description", "type", "enabled", "severity", "repeat_actions", "time_constraints", *ACTION_KEYS}
    | {rule_key for rule_key, _ in RULES.values()}
)


class Alarms:
    collection = "alarms"
    quota_status = 403
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name:
            raise BadRequest(
                "Invalid input for field/attribute name. Value: 'None'. Mandatory field missing."
            )
        alarm_id = world.new_id()
        now = world.timestamp()
        body: Body = {
            "id": alarm_id,
            "alarm_id": alarm_id,
            "project_id": world.settings.project_id,
            "user_id": world.settings.user_id,
            **DEFAULTS,
            "state": INSUFFICIENT_DATA,
            "state_reason": "Not evaluated yet",
            "state_timestamp": now,
            "timestamp": now,
            "_breaches": 0,
        }
        body = checked({**body, **settable(request)})
        self._refuse_duplicate(world, name, None)
        return body

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        """A PUT: the whole alarm as sent (Aodh replaces it, omitted fields back to their defaults),
        its state kept; or a PUT of the state alone."""
        if request and set(request) <= STATE_FIELDS:
            return {**body, **request, "state_timestamp": world.timestamp(), "_breaches": 0}
        if "name" in request:
            self._refuse_duplicate(world, str(request["name"]), body["id"])
        kept = {key: value for key, value in body.items() if key not in SETTABLE}
        updated = checked(
            {**kept, "name": body["name"], **DEFAULTS, **settable(request), "timestamp": world.timestamp()}
        )
        if updated.get("type") != body.get("type"):
            updated["_breaches"] = 0
        return updated

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None

    @staticmethod
    def _refuse_duplicate(world: CloudWorld, name: str, own_id: str | None) -> None:
        for other in world.inventory("alarms").select(name=name):
            if other["id"] != own_id:
                raise Conflict(f"Alarm with name='{name}' exists")


def settable(request: Mapping[str, Any]) -> Body:
    return {key: value for key, value in request.items() if key in SETTABLE and value is not None}


def rule_key_of(body: Mapping[str, Any]) -> str:
    return RULES[str(body["type"])][0]


def checked(body: Body) -> Body:
    """The body, or the 400 Aodh answers for a type, rule, severity or action it does not accept."""
    kind = body.get("type")
    if kind not in RULES:
        raise BadRequest(
            f"Invalid input for field/attribute type. Value: '{kind}'. "
            f"Value should be one of: {', '.join(RULES)}"
        )
    rule_key, required = RULES[str(kind)]
    rule = body.get(rule_key)
    if not isinstance(rule, Mapping):
        raise BadRequest(f"{rule_key} must be set for {kind} type alarm")
    missing = [key for key in required if rule.get(key) in (None, "", [])]
    if missing:
        raise BadRequest(
            f"Invalid input for field/attribute {rule_key}. Mandatory field missing: {missing[0]}"
        )
    if rule.get("comparison_operator", "eq") not in OPERATORS:
        raise BadRequest(
            f"Invalid input for field/attribute comparison_operator. "
            f"Value: '{rule.get('comparison_operator')}'. Value should be one of: {', '.join(OPERATORS)}"
        )
    if kind == "gnocchi_aggregation_by_resources_threshold" and not is_json_object(rule.get("query")):
        raise BadRequest(f"Query value '{rule.get('query')}' is not a valid JSON object")
    if kind == "composite" and not composite_is_valid(rule):
        raise BadRequest(
            "Invalid input for field/attribute composite_rule: expected one of and/or with rules"
        )
    if body.get("severity") not in SEVERITIES:
        raise BadRequest(
            f"Invalid input for field/attribute severity. Value: '{body.get('severity')}'. "
            f"Value should be one of: {', '.join(SEVERITIES)}"
        )
    if body.get("state") not in STATES:
        raise BadRequest(f"Invalid input for field/attribute state. Value: '{body.get('state')}'.")
    for key in ACTION_KEYS:
        if not isinstance(body.get(key), list) or not all(isinstance(url, str) for url in body[key]):
            raise BadRequest(f"Invalid input for field/attribute {key}: a list of URLs is expected.")
    return {**body, rule_key: dict(rule)}


def is_json_object(text: Any) -> bool:
    """Whether a Gnocchi search filter, as Heat passes it (JSON text), is a JSON object."""
    if not isinstance(text, str):
        return isinstance(text, Mapping)
    try:
        return isinstance(json.loads(text), Mapping)
    except ValueError:
        return False


def composite_is_valid(node: Any) -> bool:
    """A composite rule: {"and"|"or": [rule or composite, ...]}; a leaf rule names its `type`."""
    if not isinstance(node, Mapping):
        return False
    if "type" in node:
        return node["type"] in RULES and node["type"] not in ("event", "composite")
    if len(node) != 1 or next(iter(node)) not in ("and", "or"):
        return False
    children = next(iter(node.values()))
    return (
        isinstance(children, list) and bool(children) and all(composite_is_valid(child) for child in children)
    )


def shown(body: Mapping[str, Any]) -> Body:
    """The alarm as Aodh's API shows it."""
    return {key: value for key, value in body.items() if key != "id" and not key.startswith("_")}


BEHAVIOURS = (Alarms(),)
