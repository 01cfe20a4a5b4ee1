"""What the simulated cloud's alarms are evaluated from: Gnocchi-style measures and Panko-style
events, both set by a test (the model's `Telemetry`, or the admin API).

A measure is one value of one metric of one resource at one moment: the resource's id and type,
its attributes (what a Gnocchi search filter matches: `server_group`, `flavor_id`, a server's
user metadata), the metric's name and, optionally, its id (what an aggregation-by-metrics alarm
names). Only the newest value of each metric of each resource is kept. An event is a notification
type with traits (`compute.instance.update` with `instance_id` and `state`), held until the next
evaluation reads it. Neither is saved with the cloud's state file.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Measure:
    resource_id: str
    metric: str
    value: float
    at: float  # the cloud clock's reading when it was recorded
    resource_type: str = "generic"
    attributes: Mapping[str, Any] = field(default_factory=dict)
    metric_id: str | None = None

    def field(self, name: str) -> Any:
        """A resource field a query names: `id`/`resource_id`, `type`, or an attribute."""
        if name in ("id", "resource_id"):
            return self.resource_id
        if name in ("type", "resource_type"):
            return self.resource_type
        return self.attributes.get(name)


@dataclass(frozen=True)
class Event:
    event_type: str
    traits: Mapping[str, Any]
    message_id: str = ""

    def field(self, name: str) -> Any:
        """`traits.X` is the trait X; `event_type` and `message_id` are the event's own."""
        if name.startswith("traits."):
            return self.traits.get(name.removeprefix("traits."))
        return {"event_type": self.event_type, "message_id": self.message_id}.get(name)


class MeasureIndex:
    """One round's measures by metric name and by metric id, so that each rule reads only the series
    of its own metric rather than every measure of the cloud."""

    def __init__(self, measures: Iterable[Measure]) -> None:
        self._by_metric: dict[str, list[Measure]] = {}
        self._by_id: dict[str, list[Measure]] = {}
        self._by_field: dict[tuple[str, str], dict[Any, list[Measure]]] = {}
        for measure in measures:
            self._by_metric.setdefault(measure.metric, []).append(measure)
            if measure.metric_id is not None:
                self._by_id.setdefault(measure.metric_id, []).append(measure)

    def candidates(self, kind: str, rule: Mapping[str, Any]) -> list[Measure]:
        """The measures a threshold rule of type `kind` may match (the rule's filters still apply)."""
        if kind == "gnocchi_aggregation_by_metrics_threshold":
            return [
                measure
                for metric in rule.get("metrics") or ()
                for measure in self._by_id.get(str(metric), ())
            ]
        name = rule.get("meter_name") if kind == "threshold" else rule.get("metric")
        return self._by_metric.get(str(name), [])

    def having(self, metric: str, field: str, value: Any) -> list[Measure]:
        """The measures of `metric` whose resource has `field` equal to `value` (an index made on
        first use per metric and field, so a round of many alarms over one metric stays linear)."""
        table = self._by_field.get((metric, field))
        if table is None:
            table = {}
            for measure in self._by_metric.get(metric, ()):
                key = measure.field(field)
                if isinstance(key, (str, int, float, bool)):
                    table.setdefault(key, []).append(measure)
            self._by_field[(metric, field)] = table
        return table.get(value, []) if isinstance(value, (str, int, float, bool)) else []


class Telemetry:
    """The newest measure per resource and metric, and the events not evaluated yet."""

    def __init__(self) -> None:
        self._measures: dict[tuple[str, str], Measure] = {}
        self._events: list[Event] = []
        self._lock = threading.Lock()

    def record(self, measure: Measure) -> None:
        with self._lock:
            self._measures[(measure.resource_id, measure.metric)] = measure

    def measures(self) -> list[Measure]:
        with self._lock:
            return list(self._measures.values())

    def emit(self, event: Event) -> None:
        with self._lock:
            self._events.append(event)

    def take_events(self) -> list[Event]:
        """The events emitted since the last call, in order; each is evaluated once."""
        with self._lock:
            events, self._events = self._events, []
            return events
