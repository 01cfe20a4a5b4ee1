"""OS::Nova::Server's `user_data_format` and `software_config_transport`, as Heat applies them.

`SoftwareServers` stands in front of a cloud's provider for OS::Nova::Server and changes only what
a create sends as user data:

- a `user_data` naming a software config by its id (RAW or SOFTWARE_CONFIG) is replaced by that
  config's text, as Heat inlines it;
- SOFTWARE_CONFIG makes Heat's multipart user data: the user's script (or each part of the user's
  own multipart message) and a `cfn-init-data` part holding the server's initial metadata, whose
  `os-collect-config` section points the agent's `request` collector at the server's metadata URL
  on the agent API. Every polling transport (POLL_TEMP_URL, POLL_SERVER_HEAT, POLL_SERVER_CFN) is
  served that way: no cloud credential reaches the VM.

The metadata URL carries a token issued for the create's marker before the call and bound to the
server's id when the create (or its adoption by marker) comes back; the server's deletion revokes it.
"""

from __future__ import annotations

import email
import hashlib
import json
from collections.abc import Collection, Mapping
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from typing import Any

from providers.heat.agent_links import AgentLinks, new_token
from providers.heat.software_configs import is_uuid_like
from providers.heat.software_records import SERVER_TOKEN, SoftwareRecords, token_digest
from providers.interface import (
    LiveResource,
    Marker,
    Permanent,
    Provider,
    ResourceType,
    Snapshotting,
    Suspending,
)

SERVER = "OS::Nova::Server"
RAW, SOFTWARE_CONFIG = "RAW", "SOFTWARE_CONFIG"
COLLECTORS = ["ec2", "request", "local"]


def collect_config(metadata_url: str) -> dict[str, Any]:
    """The `os-collect-config` section that makes the agent poll `metadata_url`."""
    return {"request": {"metadata_url": metadata_url}, "collectors": list(COLLECTORS)}


def software_config_user_data(user_data: str, metadata_url: str) -> str:
    """Heat's SOFTWARE_CONFIG user data: the user's parts, then the initial metadata."""
    parts: list[MIMEText] = []
    parsed = email.message_from_string(user_data) if user_data else None
    if parsed is not None and parsed.is_multipart():
        for part in parsed.get_payload():
            if isinstance(part, Message):
                parts.append(
                    _part(str(part.get_payload()), part.get_filename() or "", part.get_content_subtype())
                )
    elif user_data:
        parts.append(_part(user_data, "", "x-shellscript"))
    metadata = {"os-collect-config": collect_config(metadata_url), "deployments": []}
    parts.append(_part(json.dumps(metadata), "cfn-init-data", "x-cfninitdata"))
    boundary = hashlib.sha256(user_data.encode()).hexdigest()[:19]
    return MIMEMultipart(boundary=f"==============={boundary}==", _subparts=parts).as_string()


def metadata_of_user_data(user_data: str) -> dict[str, Any] | None:
    """The initial metadata (`cfn-init-data`) a SOFTWARE_CONFIG user data holds, as an agent reads it."""
    parsed = email.message_from_string(user_data)
    if not parsed.is_multipart():
        return None
    for part in parsed.get_payload():
        if isinstance(part, Message) and part.get_filename() == "cfn-init-data":
            found: dict[str, Any] = json.loads(str(part.get_payload()))
            return found
    return None


def _part(content: str, filename: str, subtype: str) -> MIMEText:
    message = MIMEText(content, _subtype=subtype)
    if filename:
        message.add_header("Content-Disposition", "attachment", filename=filename)
    return message


class SoftwareServers:
    """OS::Nova::Server of `cloud`, with Heat's user data formats; every other call passes through."""

    def __init__(self, cloud: Provider, records: SoftwareRecords, links: AgentLinks) -> None:
        self._cloud = cloud
        self._records = records
        self._links = links

    def resource_types(self) -> Mapping[str, ResourceType]:
        entry = self._cloud.resource_types().get(SERVER)
        return {} if entry is None else {SERVER: entry}

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        user_data = self._inlined(properties)
        metadata_url = None
        if properties.get("user_data_format") == SOFTWARE_CONFIG:
            token = new_token()
            self._records.issue_token(token_digest(token), SERVER_TOKEN, marker.tag)
            metadata_url = self._links.metadata_url(token)
            user_data = software_config_user_data(user_data, metadata_url)
        live = self._cloud.create(type_name, {**properties, "user_data": user_data}, marker)
        if metadata_url is None:
            return live
        self._records.bind_server(marker.tag, live.physical_id)
        attributes = {**live.attributes, "os_collect_config": collect_config(metadata_url)}
        return LiveResource(
            live.physical_id,
            live.type,
            live.status,
            live.properties,
            attributes,
            live.marker,
            live.status_reason,
        )

    def _inlined(self, properties: Mapping[str, Any]) -> str:
        user_data = str(properties.get("user_data") or "")
        if properties.get("user_data_format") in (RAW, SOFTWARE_CONFIG) and is_uuid_like(user_data):
            found = self._records.objects([user_data]).get(user_data)
            if found is not None:
                config = found.body.get("config")
                return config if isinstance(config, str) else json.dumps(config)
        return user_data

    def update(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self._cloud.update(type_name, physical_id, properties, changed)

    def delete(self, type_name: str, physical_id: str) -> None:
        self._cloud.delete(type_name, physical_id)
        self._records.revoke_server(physical_id)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return self._cloud.observe(type_name, physical_ids)

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        found = self._cloud.find_by_marker(type_name, marker)
        if found is not None:
            self._records.bind_server(marker.tag, found.physical_id)
        return found

    def snapshot(self, type_name: str, physical_id: str, marker: Marker) -> str:
        if not isinstance(self._cloud, Snapshotting):
            raise Permanent(f"{type_name} cannot be copied on this cloud")
        return self._cloud.snapshot(type_name, physical_id, marker)

    # The declared `state` of a stack reaches its servers through this wrapper too (`Suspending`).
    def can_suspend(self, type_name: str) -> bool:
        return isinstance(self._cloud, Suspending) and self._cloud.can_suspend(type_name)

    def suspend(self, type_name: str, physical_id: str) -> LiveResource:
        return self._suspending(type_name).suspend(type_name, physical_id)

    def resume(self, type_name: str, physical_id: str) -> LiveResource:
        return self._suspending(type_name).resume(type_name, physical_id)

    def _suspending(self, type_name: str) -> Suspending:
        if not isinstance(self._cloud, Suspending):
            raise Permanent(f"{type_name} cannot be suspended on this cloud")
        return self._cloud
