"""One evaluation round of every enabled alarm, as Aodh's evaluators run one: new states, their
reasons, and the notifications the alarms' actions are owed.

Threshold alarms move to `alarm` once their rule has breached on `evaluation_periods` consecutive
rounds, to `ok` on the first round it does not, and to `insufficient data` when no measure is in
their window. Composite alarms take the truth of their rule tree each round. Event alarms move to
`alarm` on an event their rule matches and are left alone by rounds without one. An alarm that
changes state, or stays in a state with `repeat_actions` set, owes a notification to each URL of
that state's actions, with the body Aodh's notifiers send. This module changes only the alarms'
bodies in the world it is handed; delivering the notifications is `alarm_notifier`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from providers.simulated.alarm_rules import composite_truth, event_matches, read_threshold
from providers.simulated.alarms import ALARM, INSUFFICIENT_DATA, OK, rule_key_of
from providers.simulated.inventory import Body
from providers.simulated.telemetry import Event, Measure, MeasureIndex
from providers.simulated.world import CloudWorld

ACTIONS_OF_STATE = {ALARM: "alarm_actions", OK: "ok_actions", INSUFFICIENT_DATA: "insufficient_data_actions"}


@dataclass(frozen=True)
class Notification:
    """One POST an alarm owes: the action's URL (as the alarm lists it) and Aodh's body."""

    url: str
    body: Mapping[str, Any]


@dataclass(frozen=True)
class Verdict:
    state: str
    reason: str
    reason_data: Mapping[str, Any]
    breaches: int = 0
    conclusive: bool = True  # False: breaching, but on fewer rounds than the rule's periods


def evaluate_alarms(
    world: CloudWorld, measures: Sequence[Measure], events: Sequence[Event]
) -> list[Notification]:
    """Evaluate every enabled alarm of the world once; the notifications owed, in order."""
    owed: list[Notification] = []
    index = MeasureIndex(measures)
    for body in list(world.inventory("alarms")):
        if not body.get("enabled", True):
            continue
        if body["type"] == "event":
            current = body
            for event in events:
                if event_matches(body[rule_key_of(body)], event):
                    current = settled(world, current, event_verdict(event), owed)
            continue
        verdict = (
            composite_verdict(body, index, world.now)
            if body["type"] == "composite"
            else threshold_verdict(body, index, world.now)
        )
        settled(world, body, verdict, owed)
    return owed


def threshold_verdict(body: Body, measures: MeasureIndex, now: float) -> Verdict:
    rule = body[rule_key_of(body)]
    reading = read_threshold(body["type"], rule, measures, now)
    periods = max(1, int(rule.get("evaluation_periods") or 1))
    if reading.breached is None:
        return Verdict(
            INSUFFICIENT_DATA,
            f"{periods} datapoints are unknown",
            {"type": "threshold", "disposition": "unknown", "count": periods, "most_recent": None},
        )
    data = {"type": "threshold", "count": reading.count, "most_recent": reading.value}
    if not reading.breached:
        return Verdict(
            OK,
            f"Transition to ok due to {reading.count} samples inside threshold, most recent: {reading.value}",
            {**data, "disposition": "inside"},
        )
    breaches = int(body.get("_breaches", 0)) + 1
    reason = (
        f"Transition to alarm due to {reading.count} samples outside threshold, most recent: {reading.value}"
    )
    return Verdict(ALARM, reason, {**data, "disposition": "outside"}, breaches, breaches >= periods)


def composite_verdict(body: Body, measures: MeasureIndex, now: float) -> Verdict:
    rule = body[rule_key_of(body)]

    def leaf(node: Mapping[str, Any]) -> bool | None:
        return read_threshold(str(node["type"]), node, measures, now).breached

    truth = composite_truth(rule, leaf)
    state = INSUFFICIENT_DATA if truth is None else (ALARM if truth else OK)
    return Verdict(
        state,
        f"Composite rule alarm with composition form: {rule} transition to {state}",
        {"type": "composite", "composition_form": str(rule)},
    )


def event_verdict(event: Event) -> Verdict:
    return Verdict(
        ALARM,
        f"Event <id={event.message_id},event_type={event.event_type}> hits the query.",
        {
            "type": "event",
            "event": {
                "message_id": event.message_id,
                "event_type": event.event_type,
                "traits": dict(event.traits),
            },
        },
    )


def settled(world: CloudWorld, body: Body, verdict: Verdict, owed: list[Notification]) -> Body:
    """The alarm with the verdict recorded; the notifications it owes appended to `owed`."""
    previous = str(body["state"])
    if not verdict.conclusive:
        return world.add("alarms", {**body, "_breaches": verdict.breaches})
    changed = verdict.state != previous
    updated = {**body, "_breaches": verdict.breaches}
    if changed:
        updated.update(state=verdict.state, state_reason=verdict.reason, state_timestamp=world.timestamp())
    world.add("alarms", updated)
    if changed or body.get("repeat_actions"):
        notice = {
            "alarm_id": body["alarm_id"],
            "alarm_name": body["name"],
            "severity": body.get("severity", "low"),
            "previous": previous,
            "current": verdict.state,
            "reason": verdict.reason,
            "reason_data": dict(verdict.reason_data),
        }
        owed.extend(Notification(url, notice) for url in body.get(ACTIONS_OF_STATE[verdict.state]) or ())
    return updated
