"""The config a SoftwareConfig, StructuredConfig, MultipartMime or CloudConfig resource stores.

Each is Heat's software config body: `group`, `config`, `inputs`, `outputs`, `options`, `name`.
A MultipartMime inlines the parts that name another config by its id, as Heat does; its MIME
boundary is derived from the parts, so the same parts always make the same message (and the same
config hash for the deployments that use it).
"""

from __future__ import annotations

import email
import hashlib
import json
import os
import uuid
from collections.abc import Callable, Mapping
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

import yaml

from providers.heat.software_types import CLOUD_CONFIG, MULTIPART_MIME, SOFTWARE_COMPONENT, STRUCTURED_CONFIG

UNGROUPED = "Heat::Ungrouped"
COMPONENT = "component"
DEFAULT_ACTIONS = ("CREATE", "UPDATE")


class ConfigError(ValueError):
    """Properties no config can be made of (the message says why)."""


ConfigLookup = Callable[[str], "Mapping[str, Any] | None"]


def is_uuid_like(value: object) -> bool:
    """Heat's test for "this string may name a config": a UUID, with or without dashes."""
    if not isinstance(value, str):
        return False
    try:
        return str(uuid.UUID(value)).replace("-", "") == value.replace("-", "").lower()
    except ValueError:
        return False


def config_body(
    type_name: str, properties: Mapping[str, Any], name: str, lookup: ConfigLookup
) -> dict[str, Any]:
    """The stored config of a config resource of `type_name` named `name`."""
    if type_name == MULTIPART_MIME:
        config: Any = multipart_message(properties.get("parts") or [], lookup)
        return _body(name, properties.get("group") or UNGROUPED, config)
    if type_name == CLOUD_CONFIG:
        document = yaml.safe_dump(dict(properties.get("cloud_config") or {}), default_flow_style=False)
        return _body(name, UNGROUPED, "#cloud-config\n" + document)
    default: Any = {} if type_name == STRUCTURED_CONFIG else ""
    if type_name == SOFTWARE_COMPONENT:
        body = _body(name, COMPONENT, {"configs": component_configs(properties.get("configs") or [])})
    else:
        body = _body(name, properties.get("group") or UNGROUPED, properties.get("config") or default)
    body["inputs"] = [dict(item) for item in properties.get("inputs") or []]
    body["outputs"] = [dict(item) for item in properties.get("outputs") or []]
    body["options"] = dict(properties.get("options") or {})
    return body


def component_configs(configs: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """A SoftwareComponent's configs, each with its actions; an action may have one config only."""
    seen: set[str] = set()
    result: list[dict[str, Any]] = []
    for item in configs:
        actions = [str(action) for action in item.get("actions") or DEFAULT_ACTIONS]
        twice = seen.intersection(actions)
        if twice:
            raise ConfigError(
                f"Defining more than one configuration for the action {sorted(twice)[0]} is not allowed"
            )
        seen.update(actions)
        result.append({"actions": actions, "config": item.get("config") or "", "tool": item.get("tool")})
    return result


def component_actions(config: Mapping[str, Any]) -> frozenset[str]:
    """The actions a component config has a config for (a deployment of it runs for those only)."""
    configs = (config.get("config") or {}).get("configs") or []
    return frozenset(str(action) for item in configs for action in item.get("actions") or ())


def _body(name: str, group: str, config: Any) -> dict[str, Any]:
    return {"name": name, "group": group, "config": config, "inputs": [], "outputs": [], "options": {}}


def multipart_message(parts: list[Mapping[str, Any]], lookup: ConfigLookup) -> str:
    """Heat's MIME message of `parts`: a part naming a config's id carries that config's text."""
    subparts: list[MIMEText] = []
    for item in parts:
        content = item.get("config") or ""
        stored = lookup(content) if is_uuid_like(content) else None
        if stored is not None:
            content = stored.get("config") or ""
        if not isinstance(content, str):
            content = json.dumps(content)
        if item.get("type", "text") == "multipart":
            subparts.extend(_subparts_of(content))
        else:
            subparts.append(_part(content, item.get("subtype") or "", item.get("filename") or ""))
    boundary = hashlib.sha256(json.dumps([dict(p) for p in parts], sort_keys=True).encode()).hexdigest()
    message = MIMEMultipart(boundary=f"==============={boundary[:19]}==", _subparts=subparts)
    return message.as_string()


def _subparts_of(content: str) -> list[MIMEText]:
    parsed = email.message_from_string(content)
    if not parsed.is_multipart():
        return []
    found: list[MIMEText] = []
    for part in parsed.get_payload():
        if isinstance(part, email.message.Message):
            payload = part.get_payload()
            found.append(_part(str(payload), part.get_content_subtype(), part.get_filename() or ""))
    return found


def _part(content: str, subtype: str, filename: str) -> MIMEText:
    if not subtype and filename:
        subtype = os.path.splitext(filename)[0]
    message = MIMEText(content, _subtype=subtype) if subtype else MIMEText(content)
    if filename:
        message.add_header("Content-Disposition", "attachment", filename=filename)
    return message
