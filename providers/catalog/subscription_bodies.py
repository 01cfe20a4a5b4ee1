"""How Heat's OS::Zaqar::Subscription and OS::Zaqar::MistralTrigger properties become a Zaqar
subscription, and how one reads back: one answer for every backend that serves them.

A MistralTrigger is a subscription whose subscriber is Mistral's executions URL behind a Keystone
trust (`trust+<workflow endpoint>/executions`) and whose options carry, as Heat writes them, the
`post_data` Zaqar sends for each message: the workflow, its input, and its params with the message
itself as `env.notification`. The marker rides in the options (`reconciler_marker`). The physical
id is `<queue>/<subscription id>`, since every Zaqar call names the queue.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound

SUBSCRIPTION_TYPE = "OS::Zaqar::Subscription"
MISTRAL_TRIGGER_TYPE = "OS::Zaqar::MistralTrigger"
MARKER_KEY = "reconciler_marker"
DEFAULT_TTL = 220367260800  # Heat's default ttl, for a backend that does not fill schema defaults in


def split_id(physical_id: str) -> tuple[str, str]:
    queue, _, subscription = physical_id.partition("/")
    if not subscription:
        raise NotFound(f"{physical_id!r} is not a subscription id (<queue>/<id>)")
    return queue, subscription


def mistral_subscriber(workflow_endpoint: str) -> str:
    return f"trust+{workflow_endpoint.rstrip('/')}/executions"


def post_data_options(properties: Mapping[str, Any]) -> dict[str, Any]:
    params = dict(properties.get("params") or {})
    params["env"] = {**(params.get("env") or {}), "notification": "$zaqar_message$"}
    post_data = {
        "workflow_id": properties["workflow_id"],
        "params": params,
        "input": properties.get("input") or {},
    }
    return {"post_data": json.dumps(post_data, sort_keys=True)}


def subscription_body(
    type_name: str, properties: Mapping[str, Any], tag: str | None, workflow_endpoint: str | None
) -> dict[str, Any]:
    """The POST or PATCH body; `workflow_endpoint` is Mistral's, for a MistralTrigger."""
    if type_name == MISTRAL_TRIGGER_TYPE:
        subscriber, options = mistral_subscriber(workflow_endpoint or ""), post_data_options(properties)
    else:
        subscriber, options = properties["subscriber"], dict(properties.get("options") or {})
    if tag is not None:
        options[MARKER_KEY] = tag
    ttl = properties.get("ttl")
    return {"subscriber": subscriber, "ttl": DEFAULT_TTL if ttl is None else ttl, "options": options}


def subscription_live(
    type_name: str, queue: str, subscription: Mapping[str, Any], marker: Marker | None
) -> LiveResource:
    options = {key: value for key, value in (subscription.get("options") or {}).items() if key != MARKER_KEY}
    reported: dict[str, Any] = {"queue_name": queue, "ttl": subscription.get("ttl")}
    if type_name == SUBSCRIPTION_TYPE:
        reported.update(subscriber=subscription.get("subscriber"), options=options)
    else:
        post_data = json.loads(options.get("post_data") or "{}")
        reported.update(workflow_id=post_data.get("workflow_id"), input=post_data.get("input"))
    physical_id = f"{queue}/{subscription['id']}"
    return LiveResource(physical_id, type_name, LiveStatus.READY, reported, {}, marker)
