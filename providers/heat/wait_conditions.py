"""OS::Heat::WaitConditionHandle signals and OS::Heat::WaitCondition's verdict, as Heat has them.

A handle accepts `{"status": "SUCCESS"|"FAILURE", "reason": ..., "data": ..., "id": ...}` (or
CloudFormation's `Status`, `Reason`, `Data`, `UniqueId`, as cfn-signal sends them), every key
optional: no status is SUCCESS, no id is the next number, no reason is "Signal N received".
A wait condition completes once `count` SUCCESS signals arrived, fails at the first FAILURE (with
the failures' reasons), and fails when `timeout` seconds pass first. Its `data` attribute is the
JSON text of `{id: data}` over every signal received.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from providers.heat.software_records import HandleSignal

SUCCESS, FAILURE = "SUCCESS", "FAILURE"
# What cfn-signal sends to an AWS handle's URL, in Heat's own keys.
CFN_KEYS = {"Status": "status", "Reason": "reason", "UniqueId": "id", "Data": "data"}


class BadSignal(ValueError):
    """A signal body a handle cannot accept (its message says why)."""


def handle_signal(details: Mapping[str, Any] | None, received: int) -> HandleSignal:
    """The signal a body makes, `received` being how many the handle already holds."""
    details = {
        **{CFN_KEYS.get(key, key): value for key, value in (details or {}).items()},
        **dict(details or {}),
    }
    status = str(details.get("status") or SUCCESS)
    if status not in (SUCCESS, FAILURE):
        raise BadSignal(f"status must be {SUCCESS} or {FAILURE}, not {status!r}")
    signal_id = str(details.get("id") or received + 1)
    reason = str(details.get("reason") or f"Signal {signal_id} received")
    return HandleSignal(signal_id, status, reason, details.get("data"))


@dataclass(frozen=True)
class Waiting:
    received: int


@dataclass(frozen=True)
class Completed:
    data: str


@dataclass(frozen=True)
class WaitFailed:
    reason: str


def wait_verdict(
    signals: Sequence[HandleSignal], count: int, *, timed_out: bool, name: str
) -> Waiting | Completed | WaitFailed:
    """Where a wait condition named `name` stands with these signals."""
    failures = [signal.reason for signal in signals if signal.status != SUCCESS]
    if failures:
        return WaitFailed(f"WaitConditionFailure: resources.{name}: {';'.join(failures)}")
    if len(signals) >= count:
        return Completed(wait_data(signals))
    if timed_out:
        return WaitFailed(f"WaitConditionTimeout: resources.{name}: {len(signals)} of {count} received")
    return Waiting(len(signals))


def wait_data(signals: Sequence[HandleSignal]) -> str:
    return json.dumps({signal.signal_id: signal.data for signal in signals})
