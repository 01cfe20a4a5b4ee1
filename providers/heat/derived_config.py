"""A deployment's derived config: the entry its server's metadata lists, as Heat builds it.

Heat gives the server the config with every input resolved to a value, followed by the derived
inputs naming the deployment (`deploy_server_id`, `deploy_action`, `deploy_stack_id`,
`deploy_resource_name`, `deploy_signal_transport`, and for TEMP_URL_SIGNAL `deploy_signal_id`
and `deploy_signal_verb`). `deploy_config_hash` is added here: a digest of the config and every
input value that says what the deployment *is* (not which action runs it, nor where it signals),
so an agent or the provider can run a deployment exactly once for the same inputs.

The entry's `id` names one run: the same deployment, action and hash always give the same id, so
heat-config (which skips an id it has deployed) never runs it twice.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

ENTRY_NAMESPACE = uuid.UUID("5f0c1c44-4e0b-4d0c-9a51-0a4bdf2d7c11")
HASH_INPUT = "deploy_config_hash"
# Inputs that say how this run reaches back, not what is deployed: outside the hash.
SIGNAL_INPUTS = frozenset({"deploy_signal_id", "deploy_signal_verb"})
RUN_INPUTS = frozenset({"deploy_action", HASH_INPUT}) | SIGNAL_INPUTS


@dataclass(frozen=True)
class DeploymentTarget:
    """Who a deployment is: its id, server, stack and resource name, and how it signals."""

    deployment_id: str
    server_id: str
    stack: str
    resource: str
    signal_transport: str
    name: str | None = None
    input_key: str | None = None  # StructuredDeployment: the key whose maps are replaced by inputs


def stack_path(stack: str) -> str:
    """Heat's `stack_name/stack_id`; a stack's id here is derived from its name, which is its identity."""
    return f"{stack}/{uuid.uuid5(uuid.NAMESPACE_URL, 'reconciler-stack:' + stack)}"


def resolved_inputs(config: Mapping[str, Any], input_values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Declared inputs with their values (the given one, else the default), then undeclared values."""
    values = dict(input_values or {})
    inputs: list[dict[str, Any]] = []
    for declared in config.get("inputs") or []:
        entry = {"type": "String", **dict(declared)}
        entry["value"] = values.pop(str(declared.get("name")), declared.get("default"))
        inputs.append(entry)
    inputs.extend({"name": name, "type": "String", "value": value} for name, value in values.items())
    return inputs


def derived_inputs(target: DeploymentTarget, action: str, signal_url: str | None) -> list[dict[str, Any]]:
    """The `deploy_*` inputs Heat adds, in Heat's order."""
    derived = [
        ("deploy_server_id", target.server_id, "ID of the server being deployed to"),
        ("deploy_action", action, "Name of the current action being deployed"),
        ("deploy_stack_id", stack_path(target.stack), "ID of the stack this deployment belongs to"),
        ("deploy_resource_name", target.resource, "Name of this deployment resource in the stack"),
        (
            "deploy_signal_transport",
            target.signal_transport,
            "How the server should signal to heat with the deployment output values.",
        ),
    ]
    listed = [
        {"name": name, "value": value, "type": "String", "description": text} for name, value, text in derived
    ]
    return listed + (_signal_inputs(signal_url, target.signal_transport) if signal_url is not None else [])


def _signal_inputs(signal_url: str, transport: str) -> list[dict[str, Any]]:
    verb = "POST" if transport == "CFN_SIGNAL" else "PUT"  # Heat's verbs; the agent API takes both
    return [
        {
            "name": "deploy_signal_id",
            "value": signal_url,
            "type": "String",
            "description": "ID of signal to use for signalling output values",
        },
        {
            "name": "deploy_signal_verb",
            "value": verb,
            "type": "String",
            "description": "HTTP verb to use for signalling output values",
        },
    ]


def config_hash(config: Mapping[str, Any], inputs: list[dict[str, Any]]) -> str:
    """The digest of what is deployed: the config and every input value but the run's own."""
    identity = {
        "group": config.get("group"),
        "config": config.get("config"),
        "options": config.get("options") or {},
        "outputs": config.get("outputs") or [],
        "inputs": {item["name"]: item.get("value") for item in inputs if item["name"] not in RUN_INPUTS},
    }
    return hashlib.sha256(json.dumps(identity, sort_keys=True, default=str).encode()).hexdigest()


def substituted(value: Any, inputs: Mapping[str, Any], input_key: str) -> Any:
    """StructuredDeployment: every `{input_key: name}` map in the config replaced by that input's value."""
    if isinstance(value, Mapping):
        if len(value) == 1 and input_key in value:
            return inputs.get(str(value[input_key]))
        return {key: substituted(item, inputs, input_key) for key, item in value.items()}
    if isinstance(value, list):
        return [substituted(item, inputs, input_key) for item in value]
    return value


def deployment_entry(
    target: DeploymentTarget,
    config: Mapping[str, Any],
    input_values: Mapping[str, Any],
    action: str,
    signal_url: str | None,
) -> tuple[dict[str, Any], str]:
    """The server metadata's entry for this run of the deployment, and its config hash."""
    inputs = resolved_inputs(config, input_values) + derived_inputs(target, action, signal_url)
    digest = config_hash(config, inputs)
    inputs.append(
        {
            "name": HASH_INPUT,
            "value": digest,
            "type": "String",
            "description": "Hash of the config and its inputs",
        }
    )
    body = config.get("config")
    if target.input_key is not None:
        body = substituted(body, {item["name"]: item.get("value") for item in inputs}, target.input_key)
    entry = {
        "id": str(uuid.uuid5(ENTRY_NAMESPACE, f"{target.deployment_id}:{action}:{digest}")),
        "name": target.name or config.get("name") or target.resource,
        "group": config.get("group") or "Heat::Ungrouped",
        "config": body if body is not None else "",
        "inputs": inputs,
        "outputs": list(config.get("outputs") or []),
        "options": dict(config.get("options") or {}),
    }
    return entry, digest


def rerun_entry(
    entry: Mapping[str, Any], deployment_id: str, action: str, signal_url: str | None, digest: str
) -> dict[str, Any]:
    """The entry of another run of the same deployment (a DELETE before it goes): the same config
    and inputs with the action and the signal URL of the new run."""
    kept = [dict(item) for item in entry.get("inputs") or [] if item["name"] not in SIGNAL_INPUTS]
    inputs = [{**item, "value": action} if item["name"] == "deploy_action" else item for item in kept]
    transport = next(
        (item.get("value") for item in inputs if item["name"] == "deploy_signal_transport"), None
    )
    if signal_url is not None:
        at = next((index for index, item in enumerate(inputs) if item["name"] == HASH_INPUT), len(inputs))
        inputs[at:at] = _signal_inputs(signal_url, str(transport))
    return {
        **entry,
        "id": str(uuid.uuid5(ENTRY_NAMESPACE, f"{deployment_id}:{action}:{digest}")),
        "inputs": inputs,
    }
