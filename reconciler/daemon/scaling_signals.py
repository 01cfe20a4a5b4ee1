"""A scaling policy's signal as the agent API receives it: an alarm's POST to `alarm_url` or `signal_url`.

The body is Aodh's (`alarm_id`, `previous`, `current`, `reason`, ...), or none at all (a person's
`curl -X POST`). As Heat's policy does, only the alarm state acts: a body whose `current` (else
`state`) is anything but `alarm` is answered and changes nothing. The signal is kept in the
database for the holder of the policy's shard, whichever daemon received it.

A repeat is kept once: the same `X-Openstack-Request-Id` (Aodh sends one per notification, and
the same one again when it retries it), or, without one, the same body while the first still waits.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from state.scaling import ONCE_ACTED, ScalingStore
from state.software import SoftwareStore

ALARM = "alarm"
REQUEST_KEY = "request:"


class PolicyGone(LookupError):
    """The policy a token named went meanwhile (its token is revoked with it)."""


def alarm_state(body: Mapping[str, Any] | None) -> str:
    """The alarm state a signal reports, as Heat reads it: `current`, else `state`, else alarm."""
    if body is None:
        return ALARM
    return str(body.get("current", body.get("state", ALARM))).lower()


def signal_key(body: Mapping[str, Any] | None, request_id: str | None) -> str:
    """What makes a repeat of this signal a repeat."""
    if request_id:
        return REQUEST_KEY + request_id[:150]
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return ONCE_ACTED + hashlib.sha256(text.encode()).hexdigest()


def record_scaling_signal(
    software: SoftwareStore,
    scaling: ScalingStore,
    policy_id: str,
    body: Mapping[str, Any] | None,
    request_id: str | None = None,
) -> None:
    """Keep the signal of policy `policy_id` for its shard's holder (nothing for a non-alarm state)."""
    if alarm_state(body) != ALARM:
        return
    policy = software.objects([policy_id]).get(policy_id)
    if policy is None:
        raise PolicyGone(policy_id)
    resource = str(policy.body.get("resource"))
    scaling.record_signal(policy_id, policy.stack, resource, signal_key(body, request_id))
