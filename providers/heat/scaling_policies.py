"""The provider of scaling policies: OS::Heat::ScalingPolicy and AWS::AutoScaling::ScalingPolicy.

A policy is a URL an alarm (or anyone holding it) POSTs to: `alarm_url` and `signal_url` (and the
AWS type's `AlarmUrl`) are the agent API's signal URL with a token of the policy's own, stored
only as its digest and revoked when the policy goes. What a signal does to its group is the
engine's to decide (`reconciler.engine.group_scaling`): the agent API only keeps the signal, for
the holder of the policy's stack to act on.

A policy's row (a `SoftwareObject` of kind `scaling-policy`) names its stack and resource, so a
signal reaching any daemon of a fleet finds the shard whose holder acts on it.
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Mapping
from typing import Any

from providers.catalog.declaring import from_schema
from providers.heat.agent_links import AgentLinks, new_token
from providers.heat.software_records import SCALING_TOKEN, SoftwareObject, SoftwareRecords, token_digest
from providers.interface import LiveResource, LiveStatus, Marker, NotFound, ResourceType

SCALING_POLICY = "OS::Heat::ScalingPolicy"
AWS_SCALING_POLICY = "AWS::AutoScaling::ScalingPolicy"
POLICY_TYPES = frozenset({SCALING_POLICY, AWS_SCALING_POLICY})
POLICY_KIND = "scaling-policy"
ID_NAMESPACE = uuid.UUID("5c0e3b4e-7f57-4f0c-9a55-1f7c2d0b8e21")

POLICY_CATALOG: Mapping[str, ResourceType] = {name: from_schema(name) for name in sorted(POLICY_TYPES)}


def policy_attributes(type_name: str, url: str) -> dict[str, Any]:
    """The attributes a policy answers with its signal URL."""
    if type_name == AWS_SCALING_POLICY:
        return {"AlarmUrl": url}
    return {"alarm_url": url, "signal_url": url}


class ScalingPolicyProvider:
    """Serves `POLICY_TYPES`; safe to call from several threads (every call is one transaction)."""

    def __init__(self, records: SoftwareRecords, links: AgentLinks) -> None:
        self._records = records
        self._links = links

    def resource_types(self) -> Mapping[str, ResourceType]:
        return POLICY_CATALOG

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        physical_id = str(uuid.uuid5(ID_NAMESPACE, marker.tag))
        body = {"resource": marker.resource}
        self._records.put_object(SoftwareObject(physical_id, POLICY_KIND, marker.stack, body))
        token = new_token()
        self._records.issue_token(token_digest(token), SCALING_TOKEN, physical_id)
        attributes = policy_attributes(type_name, self._links.signal_url(token))
        return LiveResource(physical_id, type_name, LiveStatus.READY, dict(properties), attributes, marker)

    def update(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        """New adjustments are read from the record at the next signal: nothing to do but exist."""
        if not self._records.objects([physical_id]):
            raise NotFound(f"{type_name} {physical_id} is gone")
        return LiveResource(physical_id, type_name, LiveStatus.READY, dict(properties))

    def delete(self, type_name: str, physical_id: str) -> None:
        if not self._records.objects([physical_id]):
            raise NotFound(f"{type_name} {physical_id} is gone")
        self._records.revoke_tokens(physical_id)
        self._records.delete_object(physical_id)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {
            pid: LiveResource(pid, type_name, LiveStatus.READY) for pid in self._records.objects(physical_ids)
        }

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        """Made again after a crash: a new token is issued, any earlier one keeps working."""
        return None
