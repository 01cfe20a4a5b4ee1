"""Wait condition handles whose reference is their URL: AWS::CloudFormation::WaitConditionHandle
and OS::Heat::UpdateWaitConditionHandle, and the AWS::CloudFormation::WaitCondition waiting on one.

As Heat has them, such a handle's physical id (what `Ref` / `get_resource` gives) is the pre-signed
URL a VM's `cfn-signal` PUTs its result to: here the agent API's signal URL, with a token of the
handle's own, stored only as its digest and revoked when the handle goes. The handle's row is kept
under an id derived from that URL, so a wait condition given the URL finds the signals it received.
A signal's body is CloudFormation's (`Status`, `Reason`, `UniqueId`, `Data`) or Heat's lower-case
keys. `OS::Heat::UpdateWaitConditionHandle` is the same handle, made anew at every update of its
stack (the engine replaces it), so whatever waits on it waits for fresh signals.

AWS::CloudFormation::WaitCondition: `Handle` (the URL), `Timeout`, `Count`; `Data` is the JSON text
of `{UniqueId: Data}` over the signals received, as OS::Heat::WaitCondition's `data`.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Collection, Mapping
from typing import Any

from providers.catalog.declaring import from_schema
from providers.heat.agent_links import AgentLinks, new_token
from providers.heat.software_records import HANDLE_TOKEN, SoftwareObject, SoftwareRecords, token_digest
from providers.heat.wait_conditions import Completed, WaitFailed, wait_verdict
from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, ResourceType
from timekeeping import Clock

AWS_WAIT_CONDITION_HANDLE = "AWS::CloudFormation::WaitConditionHandle"
UPDATE_WAIT_CONDITION_HANDLE = "OS::Heat::UpdateWaitConditionHandle"
AWS_WAIT_CONDITION = "AWS::CloudFormation::WaitCondition"
URL_HANDLE_TYPES = frozenset({AWS_WAIT_CONDITION_HANDLE, UPDATE_WAIT_CONDITION_HANDLE})
RENEWED_AT_EVERY_UPDATE = frozenset({UPDATE_WAIT_CONDITION_HANDLE})
ID_NAMESPACE = uuid.UUID("a3f1c06e-2b8d-4a51-9e2c-7d4f8b6a1c90")

# A wait condition keeps its own time limit (`Timeout`): the engine's readiness deadline is not its.
URL_HANDLE_CATALOG: Mapping[str, ResourceType] = {
    name: dataclasses.replace(
        from_schema(name, asynchronous=name == AWS_WAIT_CONDITION),
        own_deadline=name == AWS_WAIT_CONDITION,
        signalled=name == AWS_WAIT_CONDITION,
    )
    for name in sorted(URL_HANDLE_TYPES | {AWS_WAIT_CONDITION})
}


def handle_row_id(reference: str) -> str:
    """The id of a handle's row: its URL's own id (a handle referred to by URL), else `reference`."""
    if "://" in reference:
        return str(uuid.uuid5(ID_NAMESPACE, reference))
    return reference


class UrlHandleProvider:
    """Serves `URL_HANDLE_CATALOG`; safe to call from several threads (every call is one transaction)."""

    def __init__(self, records: SoftwareRecords, links: AgentLinks, clock: Clock) -> None:
        self._records = records
        self._links = links
        self._clock = clock

    def resource_types(self) -> Mapping[str, ResourceType]:
        return URL_HANDLE_CATALOG

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        if type_name in URL_HANDLE_TYPES:
            return self._create_handle(type_name, marker)
        physical_id = str(uuid.uuid5(ID_NAMESPACE, marker.tag))
        self._start_wait(physical_id, properties, marker.stack, marker.resource)
        return self._observe_one(type_name, physical_id)

    def update(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if type_name == AWS_WAIT_CONDITION:
            wait = self._records.objects([physical_id]).get(physical_id)
            if wait is None:
                raise NotFound(f"wait condition {physical_id} is gone")
            self._start_wait(physical_id, properties, wait.stack, str(wait.body.get("resource")))
        return self._observe_one(type_name, physical_id)

    def delete(self, type_name: str, physical_id: str) -> None:
        row_id = handle_row_id(physical_id)
        if not self._records.objects([row_id]):
            raise NotFound(f"{type_name} {physical_id} is gone")
        if type_name in URL_HANDLE_TYPES:
            self._records.revoke_tokens(row_id)
            self._records.delete_handle_signals(row_id)
        self._records.delete_object(row_id)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        if type_name == AWS_WAIT_CONDITION:
            return self._waits_live(physical_ids)
        rows = {handle_row_id(pid): pid for pid in physical_ids}
        found = self._records.objects(rows)
        return {rows[row]: LiveResource(rows[row], type_name, LiveStatus.READY) for row in found}

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        if type_name in URL_HANDLE_TYPES:
            return None  # made again: a new URL is issued, the earlier one keeps working
        physical_id = str(uuid.uuid5(ID_NAMESPACE, marker.tag))
        return self.observe(type_name, [physical_id]).get(physical_id)

    def _observe_one(self, type_name: str, physical_id: str) -> LiveResource:
        live = self.observe(type_name, [physical_id]).get(physical_id)
        if live is None:
            raise NotFound(f"{type_name} {physical_id} is gone")
        return live

    def _create_handle(self, type_name: str, marker: Marker) -> LiveResource:
        token = new_token()
        url = self._links.signal_url(token)
        row_id = handle_row_id(url)
        self._records.put_object(
            SoftwareObject(row_id, "handle", marker.stack, {"resource": marker.resource})
        )
        self._records.issue_token(token_digest(token), HANDLE_TOKEN, row_id)
        return LiveResource(url, type_name, LiveStatus.READY, marker=marker)

    def _start_wait(self, physical_id: str, properties: Mapping[str, Any], stack: str, resource: str) -> None:
        handle = handle_row_id(str(properties.get("Handle") or ""))
        if not self._records.objects([handle]):
            raise Permanent(f"{AWS_WAIT_CONDITION}: Handle is not a wait condition handle's URL")
        wait = WaitRecord(stack, resource, handle, properties.get("Count"), properties.get("Timeout"))
        record_wait(self._records, self._clock, physical_id, wait)

    def _waits_live(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        objects = self._records.objects(physical_ids)
        signals = self._records.handle_signals([str(item.body["handle"]) for item in objects.values()])
        now = self._clock.now()
        lives: dict[str, LiveResource] = {}
        for pid, item in objects.items():
            count = int(item.body["count"])
            verdict = wait_verdict(
                signals.get(str(item.body["handle"]), ()),
                count,
                timed_out=now >= float(item.body["deadline"]),
                name=str(item.body.get("resource")),
            )
            if isinstance(verdict, Completed):
                live = LiveResource(
                    pid, AWS_WAIT_CONDITION, LiveStatus.READY, attributes={"Data": verdict.data}
                )
            elif isinstance(verdict, WaitFailed):
                live = LiveResource(
                    pid,
                    AWS_WAIT_CONDITION,
                    LiveStatus.FAILED,
                    status_reason=verdict.reason,
                    failure_is_final=True,
                )
            else:
                reason = f"{verdict.received} of {count} signals received"
                live = LiveResource(pid, AWS_WAIT_CONDITION, LiveStatus.IN_PROGRESS, status_reason=reason)
            lives[pid] = live
        return lives


@dataclasses.dataclass(frozen=True)
class WaitRecord:
    """What a wait condition of `resource` in `stack` waits for: its handle's record, how many
    signals, for how long."""

    stack: str
    resource: str
    handle: str
    count: Any
    timeout: Any


def record_wait(records: SoftwareRecords, clock: Clock, physical_id: str, wait: WaitRecord) -> None:
    """Record a wait condition's wait, from now, for `wait.count` signals (1 by default) within
    `wait.timeout` seconds (an hour by default), as either name of the type gives them."""
    body = {
        "handle": wait.handle,
        "count": int(wait.count or 1),
        "deadline": clock.now() + float(wait.timeout or 3600),
        "resource": wait.resource,
    }
    records.put_object(SoftwareObject(physical_id, "wait-condition", wait.stack, body))
