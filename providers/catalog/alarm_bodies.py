"""How Heat's alarm properties become the alarm body Aodh's API takes, and how an alarm Aodh shows
reads back as those properties: one answer for every backend that serves the alarm types.

As Heat's alarm plugins write it: the type's own properties go into one `<type>_rule`, the common
ones (description, enabled, severity, repeat_actions, time_constraints) stay at the top, and each
state's Zaqar queues become `trust+zaqar://?queue_name=...` actions after its URLs. A threshold
alarm's `matching_metadata` joins its `query` as `metadata.<prefix>.<key> eq <value>` conditions
(prefix `user_metadata` for Nova's meters, `metering` for the others); a composite alarm's
`composite_rule` {operator, rules} becomes {operator: rules}. Alarms have no name property in Heat:
the name is the physical name the backend makes from the marker.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

GNOCCHI_RULE = ("comparison_operator", "evaluation_periods", "granularity", "aggregation_method", "threshold")
# Heat type -> (Aodh alarm type, the properties that go into its rule)
ALARM_KINDS: Mapping[str, tuple[str, tuple[str, ...]]] = MappingProxyType(
    {
        "OS::Aodh::Alarm": (
            "threshold",
            ("meter_name", "period", "evaluation_periods", "threshold", "statistic", "comparison_operator"),
        ),
        "OS::Aodh::GnocchiResourcesAlarm": (
            "gnocchi_resources_threshold",
            ("metric", "resource_id", "resource_type", *GNOCCHI_RULE),
        ),
        "OS::Aodh::GnocchiAggregationByMetricsAlarm": (
            "gnocchi_aggregation_by_metrics_threshold",
            ("metrics", *GNOCCHI_RULE),
        ),
        "OS::Aodh::GnocchiAggregationByResourcesAlarm": (
            "gnocchi_aggregation_by_resources_threshold",
            ("metric", "query", "resource_type", *GNOCCHI_RULE),
        ),
        "OS::Aodh::EventAlarm": ("event", ("event_type", "query")),
        "OS::Aodh::CompositeAlarm": ("composite", ()),
    }
)
COMMON = ("description", "enabled", "repeat_actions", "severity", "time_constraints")
STATES = ("alarm", "ok", "insufficient_data")
ZAQAR_PREFIX = "trust+zaqar://?"
NOVA_METERS = frozenset({"instance", "memory", "memory.usage", "memory.resident", "cpu", "cpu_util", "vcpus"})


def alarm_body(type_name: str, properties: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The whole alarm body (create, or the PUT that replaces it) for a Heat alarm's properties."""
    kind, rule_properties = ALARM_KINDS[type_name]
    body: dict[str, Any] = {"name": name, "type": kind}
    body.update({key: properties[key] for key in COMMON if properties.get(key) is not None})
    for state in STATES:
        urls = [str(url) for url in properties.get(f"{state}_actions") or () if url]
        queues = properties.get(f"{state}_queues") or ()
        body[f"{state}_actions"] = urls + [
            ZAQAR_PREFIX + urlencode({"queue_name": queue}) for queue in queues
        ]
    rule = {key: properties[key] for key in rule_properties if properties.get(key) is not None}
    if type_name == "OS::Aodh::Alarm":
        query = [*(properties.get("query") or ()), *metadata_query(properties)]
        if query:
            rule["query"] = query
    if type_name == "OS::Aodh::CompositeAlarm":
        composite = properties.get("composite_rule") or {}
        rule = {str(composite.get("operator")): list(composite.get("rules") or ())}
    body[f"{kind}_rule"] = rule
    return body


def metadata_query(properties: Mapping[str, Any]) -> list[dict[str, str]]:
    prefix = "user_metadata" if properties.get("meter_name") in NOVA_METERS else "metering"
    conditions = []
    for key, value in (properties.get("matching_metadata") or {}).items():
        bare = str(key).removeprefix("metadata.")
        if bare.startswith(("metering.", "user_metadata.")):
            bare = bare.split(".", 1)[1]
        conditions.append({"field": f"metadata.{prefix}.{bare}", "op": "eq", "value": str(value)})
    return conditions


def alarm_properties(type_name: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The template's view of an alarm Aodh shows (what drift is judged on)."""
    kind, rule_properties = ALARM_KINDS[type_name]
    rule = body.get(f"{kind}_rule") or {}
    properties: dict[str, Any] = {key: body.get(key) for key in COMMON if key in body}
    for key in rule_properties:
        if key in rule:
            properties[key] = rule[key]
    if type_name == "OS::Aodh::CompositeAlarm" and rule:
        operator, rules = next(iter(rule.items()))
        properties["composite_rule"] = {"operator": operator, "rules": rules}
    for state in STATES:
        urls = list(body.get(f"{state}_actions") or ())
        properties[f"{state}_actions"] = [url for url in urls if not url.startswith(ZAQAR_PREFIX)]
        properties[f"{state}_queues"] = [queue_of(url) for url in urls if url.startswith(ZAQAR_PREFIX)]
    return properties


def queue_of(url: str) -> str:
    return (parse_qs(urlsplit(url).query).get("queue_name") or [""])[0]
