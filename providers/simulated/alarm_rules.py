"""What one alarm rule says about the telemetry now: breaching, not breaching, or unknown.

Threshold rules (Ceilometer's legacy `threshold`, Gnocchi's resources, aggregation-by-metrics and
aggregation-by-resources) aggregate the newest measure of every series the rule matches, among
those recorded within its window (granularity, or period, times evaluation periods), and compare
the result with the threshold. Composite rules combine their leaves with and/or in three-valued
logic (a leaf with no data is unknown). Event rules match an event's type (a shell pattern) and
every condition of their query on the event's fields.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Any

from providers.simulated.telemetry import Event, Measure, MeasureIndex

DEFAULT_GRANULARITY = 60.0
COMPARISONS: Mapping[str, Callable[[Any, Any], bool]] = {
    "lt": lambda left, right: left < right,
    "le": lambda left, right: left <= right,
    "eq": lambda left, right: left == right,
    "ne": lambda left, right: left != right,
    "ge": lambda left, right: left >= right,
    "gt": lambda left, right: left > right,
}
# Gnocchi's search operators, spelled every way its filter language allows
SEARCH_OPERATORS = {
    "=": "eq",
    "==": "eq",
    "!=": "ne",
    "<": "lt",
    "<=": "le",
    ">": "gt",
    ">=": "ge",
    **{name: name for name in COMPARISONS},
}
AGGREGATIONS: Mapping[str, Callable[[list[float]], float]] = {
    "mean": statistics.fmean,
    "avg": statistics.fmean,
    "sum": lambda values: float(sum(values)),
    "min": min,
    "max": max,
    "last": lambda values: values[-1],
    "first": lambda values: values[0],
    "count": lambda values: float(len(values)),
    "median": statistics.median,
    "std": statistics.pstdev,
}


@dataclass(frozen=True)
class Reading:
    """What a threshold rule saw: `breached` is None when no measure was in its window."""

    breached: bool | None
    value: float | None
    count: int


def read_threshold(kind: str, rule: Mapping[str, Any], measures: MeasureIndex, now: float) -> Reading:
    window = float(rule.get("granularity") or rule.get("period") or DEFAULT_GRANULARITY) * max(
        1, int(rule.get("evaluation_periods") or 1)
    )
    belongs = matcher(kind, rule)
    matched = [
        measure
        for measure in candidates(kind, rule, measures)
        if now - measure.at <= window and belongs(measure)
    ]
    if not matched:
        return Reading(None, None, 0)
    matched.sort(key=lambda measure: measure.at)
    method = str(rule.get("aggregation_method") or rule.get("statistic") or "mean")
    value = AGGREGATIONS.get(method, statistics.fmean)([measure.value for measure in matched])
    operator = COMPARISONS[str(rule.get("comparison_operator") or "eq")]
    return Reading(operator(value, float(rule["threshold"])), value, len(matched))


def candidates(kind: str, rule: Mapping[str, Any], measures: MeasureIndex) -> list[Measure]:
    """The measures worth testing: of the rule's metric, and of the one resource field its search
    filter names when it is a single equality (the common `{"=": {"server_group": ...}}`)."""
    if kind == "gnocchi_aggregation_by_resources_threshold":
        search = parsed_search(rule.get("query"))
        if len(search) == 1:
            operator, argument = next(iter(search.items()))
            if (
                SEARCH_OPERATORS.get(operator) == "eq"
                and isinstance(argument, Mapping)
                and len(argument) == 1
            ):
                field, value = next(iter(argument.items()))
                return measures.having(str(rule.get("metric")), str(field), value)
    return measures.candidates(kind, rule)


def matcher(kind: str, rule: Mapping[str, Any]) -> Callable[[Measure], bool]:
    """Whether a measure belongs to the series the rule watches, with its search filter parsed once."""
    if kind == "gnocchi_aggregation_by_resources_threshold":
        search = parsed_search(rule.get("query"))
        metric, resource_type = rule.get("metric"), rule.get("resource_type")
        return lambda measure: (
            measure.metric == metric
            and measure.resource_type == resource_type
            and search_matches(search, measure)
        )
    return lambda measure: matches(kind, rule, measure)


def matches(kind: str, rule: Mapping[str, Any], measure: Measure) -> bool:
    """Whether a measure belongs to the series a threshold rule of type `kind` watches."""
    if kind == "gnocchi_aggregation_by_metrics_threshold":
        return measure.metric_id is not None and measure.metric_id in (rule.get("metrics") or ())
    if kind == "threshold":
        return measure.metric == rule.get("meter_name") and all(
            legacy_condition_holds(condition, measure) for condition in rule.get("query") or ()
        )
    if measure.metric != rule.get("metric") or measure.resource_type != rule.get("resource_type"):
        return False
    if kind == "gnocchi_resources_threshold":
        return measure.resource_id == rule.get("resource_id")
    return search_matches(parsed_search(rule.get("query")), measure)


def parsed_search(query: Any) -> Mapping[str, Any]:
    """A Gnocchi search filter, given as JSON text (as Heat passes it) or already parsed."""
    if isinstance(query, str):
        try:
            query = json.loads(query) if query.strip() else {}
        except ValueError:
            return {"or": []}  # matches nothing, as a filter Gnocchi refuses finds nothing
    return query if isinstance(query, Mapping) else {"or": []}


def all_match(children: Any, measure: Measure) -> bool:
    return all(search_matches(child, measure) for child in children)


def any_matches(children: Any, measure: Measure) -> bool:
    return any(search_matches(child, measure) for child in children)


def none_matches(child: Any, measure: Measure) -> bool:
    return not search_matches(child, measure)


# Gnocchi's logical operators, in words and in the symbols its filter language also accepts
LOGICAL: Mapping[str, Callable[[Any, Measure], bool]] = {
    "and": all_match,
    "\u2227": all_match,
    "or": any_matches,
    "\u2228": any_matches,
    "not": none_matches,
    "\u00ac": none_matches,
}


def search_matches(node: Mapping[str, Any], measure: Measure) -> bool:
    if not node:
        return True
    operator, argument = next(iter(node.items()))
    if operator in LOGICAL:
        return LOGICAL[operator](argument, measure)
    if not isinstance(argument, Mapping) or not argument:
        return False
    return field_matches(operator, *next(iter(argument.items())), measure)


def field_matches(operator: str, name: str, wanted: Any, measure: Measure) -> bool:
    """One comparison of a Gnocchi search filter on one field of the measure's resource."""
    actual = measure.field(name)
    if operator == "in":
        return actual in wanted
    if operator == "like":
        return isinstance(actual, str) and fnmatchcase(actual, str(wanted).replace("%", "*"))
    return compared(SEARCH_OPERATORS.get(operator, "eq"), actual, wanted)


def legacy_condition_holds(condition: Mapping[str, Any], measure: Measure) -> bool:
    """One condition of a legacy threshold query (`metadata.user_metadata.stack eq X`)."""
    name = str(condition.get("field", ""))
    actual = measure.field(name)
    for prefix in ("metadata.user_metadata.", "metadata.metering.", "metadata."):
        if actual is None and name.startswith(prefix):
            actual = measure.field(name.removeprefix(prefix))
    return compared(str(condition.get("op") or "eq"), actual, condition.get("value"))


def event_matches(rule: Mapping[str, Any], event: Event) -> bool:
    if not fnmatchcase(event.event_type, str(rule.get("event_type") or "*")):
        return False
    return all(
        compared(
            str(condition.get("op") or "eq"),
            event.field(str(condition.get("field"))),
            condition.get("value"),
            str(condition.get("type") or "string"),
        )
        for condition in rule.get("query") or ()
    )


def compared(operator: str, actual: Any, wanted: Any, kind: str = "") -> bool:
    """`actual <op> wanted`, both read as `kind` (or as numbers when both are numbers)."""
    if actual is None:
        return False
    try:
        left, right = as_kind(actual, wanted, kind)
    except (TypeError, ValueError):
        return False
    try:
        return COMPARISONS.get(operator, COMPARISONS["eq"])(left, right)
    except TypeError:
        return False


def as_kind(actual: Any, wanted: Any, kind: str) -> tuple[Any, Any]:
    if kind in ("integer", "float") or (is_number(actual) and is_number(wanted)):
        return float(actual), float(wanted)
    if kind == "boolean":
        return str(actual).lower() == "true", str(wanted).lower() == "true"
    return str(actual), str(wanted)


def is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return True
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def composite_truth(node: Mapping[str, Any], leaf: Callable[[Mapping[str, Any]], bool | None]) -> bool | None:
    """An and/or tree of rules in three-valued logic: None where unknown leaves leave it open."""
    if "type" in node:
        return leaf(node)
    operator, children = next(iter(node.items()))
    values = [composite_truth(child, leaf) for child in children]
    if operator == "and":
        return False if False in values else (True if all(values) else None)
    return True if True in values else (False if all(value is False for value in values) else None)
