"""The provider of software orchestration: configs, deployments, deployment groups, wait conditions.

Nothing here lives in a cloud: configs, deployments and wait conditions are rows of the state
database (`SoftwareRecords`, handed in by the entry layer), read by the agent API that VMs poll
and signal. A deployment is IN_PROGRESS until its server's agent signals it; observing it reads
the signal from the database, so whichever worker holds the stack sees a signal any daemon
received. Deployments and wait conditions enforce their own time limits (`own_deadline`).

Physical ids are derived from the create's marker, so a create sent again (a retry, a new owner
after a crash) finds and rewrites the same rows instead of making a second deployment.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Callable, Collection, Mapping
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from typing import Any

from providers.heat.agent_links import AgentLinks, new_token
from providers.heat.deployment_suspension import (
    RESUME,
    SUSPEND,
    follow_group_state,
    follow_state,
    group_is_suspended,
    is_suspended,
)
from providers.heat.derived_config import DeploymentTarget, deployment_entry, rerun_entry
from providers.heat.software_configs import COMPONENT, ConfigError, component_actions, config_body
from providers.heat.software_records import (
    COMPLETE,
    FAILED,
    HANDLE_TOKEN,
    IN_PROGRESS,
    Deployment,
    SoftwareObject,
    SoftwareRecords,
    token_digest,
)
from providers.heat.software_types import (
    CONFIG_TYPES,
    DEPLOYMENT_TYPES,
    GROUP_TYPES,
    SOFTWARE_TYPES,
    STRUCTURED_DEPLOYMENT,
    STRUCTURED_DEPLOYMENT_GROUP,
    WAIT_CONDITION,
    WAIT_CONDITION_HANDLE,
)
from providers.heat.url_handles import WaitRecord, handle_row_id, record_wait
from providers.heat.wait_conditions import Completed, WaitFailed, wait_verdict
from providers.interface import (
    Deliver,
    LiveResource,
    LiveStatus,
    Marker,
    NotFound,
    Permanent,
    ResourceType,
    Retryable,
)
from timekeeping import Clock

ID_NAMESPACE = uuid.UUID("0b6f7bd2-5d0c-4b7e-8f43-6f1f1d3b9a60")
NO_SIGNAL = "NO_SIGNAL"
DELETE_POLL = 2.0  # seconds between asks of a deletion waiting for its DELETE run
TIMED = DEPLOYMENT_TYPES | GROUP_TYPES | {WAIT_CONDITION}


@dataclass(frozen=True)
class SoftwareSettings:
    """How long a deployment waits for its signal (Heat: the stack's timeout)."""

    deployment_timeout: float = 3600.0


def _physical_id(marker: Marker, part: str = "") -> str:
    return str(uuid.uuid5(ID_NAMESPACE, marker.tag + part))


def _config_live(type_name: str, physical_id: str, body: Mapping[str, Any]) -> LiveResource:
    return LiveResource(physical_id, type_name, LiveStatus.READY, attributes={"config": body.get("config")})


class SoftwareProvider:
    """Serves `SOFTWARE_TYPES`; safe to call from several threads (every call is one transaction)."""

    def __init__(
        self,
        records: SoftwareRecords,
        links: AgentLinks,
        clock: Clock,
        settings: SoftwareSettings | None = None,
    ) -> None:
        self._records = records
        self._links = links
        self._clock = clock
        self._settings = settings or SoftwareSettings()
        self._types = {
            name: dataclasses.replace(entry, own_deadline=name in TIMED, signalled=name in TIMED)
            for name, entry in SOFTWARE_TYPES.items()
        }

    def resource_types(self) -> Mapping[str, ResourceType]:
        return self._types

    # Provider calls ---------------------------------------------------------------------------

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        physical_id = _physical_id(marker)
        if type_name in CONFIG_TYPES:
            try:
                body = config_body(type_name, properties, f"{marker.stack}-{marker.resource}", self._config)
            except ConfigError as error:
                raise Permanent(f"{type_name}: {error}") from error
            self._records.put_object(SoftwareObject(physical_id, "config", marker.stack, body))
            return _config_live(type_name, physical_id, body)
        elif type_name in DEPLOYMENT_TYPES:
            target = self._target(type_name, physical_id, properties, marker)
            return self._deployment_live(type_name, self._deploy(type_name, target, properties, "CREATE"))
        elif type_name in GROUP_TYPES:
            self._deploy_group(type_name, physical_id, properties, marker.stack, "CREATE")
        elif type_name == WAIT_CONDITION_HANDLE:
            return self._create_handle(physical_id, marker)
        elif type_name == WAIT_CONDITION:
            self._start_wait(physical_id, properties, marker.stack, marker.resource)
        else:
            raise Permanent(f"{type_name} is not a software orchestration type")
        return self._observe_one(type_name, physical_id)

    def create_later(
        self, type_name: str, properties: Mapping[str, Any], marker: Marker, deliver: Deliver
    ) -> LiveResource | None:
        """`create`; a deployment's write joins the batch of deployments being written, and the
        deployment is delivered once that batch committed (`CreatesLater`)."""
        if type_name not in DEPLOYMENT_TYPES:
            return self.create(type_name, properties, marker)
        written: list[Future[None]] = []

        def submit(deployment: Deployment, digest: str | None) -> None:
            written.append(self._records.submit_deployment(deployment, digest))

        target = self._target(type_name, _physical_id(marker), properties, marker)
        row = self._deploy(type_name, target, properties, "CREATE", put=submit)
        if not written:
            return self._deployment_live(type_name, row)
        written[0].add_done_callback(lambda done: deliver(partial(self._written, type_name, row, done)))
        return None

    def _written(self, type_name: str, row: Deployment, done: Future[None]) -> LiveResource:
        done.result()  # the write's error, if it failed
        return self._deployment_live(type_name, row)

    def update(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if type_name in DEPLOYMENT_TYPES:
            previous = self._records.deployments([physical_id]).get(physical_id)
            if previous is None:
                raise NotFound(f"deployment {physical_id} is gone")
            target = self._target(
                type_name, physical_id, properties, Marker(previous.stack, previous.resource, "")
            )
            row = self._deploy(type_name, target, properties, "UPDATE", previous=previous)
            return self._deployment_live(type_name, row)
        elif type_name in GROUP_TYPES:
            group = self._records.objects([physical_id]).get(physical_id)
            if group is None:
                raise NotFound(f"deployment group {physical_id} is gone")
            self._deploy_group(type_name, physical_id, properties, group.stack, "UPDATE")
        elif type_name == WAIT_CONDITION:
            wait = self._records.objects([physical_id]).get(physical_id)
            if wait is None:
                raise NotFound(f"wait condition {physical_id} is gone")
            self._start_wait(physical_id, properties, wait.stack, str(wait.body.get("resource")))
        return self._observe_one(type_name, physical_id)

    def delete(self, type_name: str, physical_id: str) -> None:
        if type_name in DEPLOYMENT_TYPES:
            row = self._records.deployments([physical_id]).get(physical_id)
            if row is None:
                raise NotFound(f"deployment {physical_id} is gone")
            self._run_for_delete(row)
            self._records.delete_deployment(physical_id)
            return
        found = self._records.objects([physical_id]).get(physical_id)
        if found is None:
            raise NotFound(f"{type_name} {physical_id} is gone")
        if type_name in GROUP_TYPES:
            for member in self._records.group_deployments(physical_id):
                self._records.delete_deployment(member.id)
        elif type_name == WAIT_CONDITION_HANDLE:
            self._records.revoke_tokens(physical_id)
            self._records.delete_handle_signals(physical_id)
        self._records.delete_object(physical_id)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        if type_name in DEPLOYMENT_TYPES:
            rows = self._records.deployments(physical_ids)
            return {pid: self._deployment_live(type_name, row) for pid, row in rows.items()}
        objects = self._records.objects(physical_ids)
        if type_name in GROUP_TYPES:
            return {
                pid: self._group_live(type_name, pid, bool(item.body.get("suspended")))
                for pid, item in objects.items()
            }
        if type_name == WAIT_CONDITION:
            return self._waits_live(objects)
        if type_name in CONFIG_TYPES:
            return {pid: _config_live(type_name, pid, item.body) for pid, item in objects.items()}
        return {pid: LiveResource(pid, type_name, LiveStatus.READY) for pid in objects}

    # Suspend and resume (`deployment_suspension`) ------------------------------------------------

    def can_suspend(self, type_name: str) -> bool:
        return type_name in DEPLOYMENT_TYPES or type_name in GROUP_TYPES

    def suspend(self, type_name: str, physical_id: str) -> LiveResource:
        return self._follow_state(type_name, physical_id, SUSPEND)

    def resume(self, type_name: str, physical_id: str) -> LiveResource:
        return self._follow_state(type_name, physical_id, RESUME)

    def _follow_state(self, type_name: str, physical_id: str, action: str) -> LiveResource:
        if type_name in GROUP_TYPES:
            self._follow_group_state(physical_id, action)
            return self._observe_one(type_name, physical_id)
        row = self._records.deployments([physical_id]).get(physical_id)
        if row is None:
            raise NotFound(f"deployment {physical_id} is gone")
        self._follow_row(row, action)
        return self._observe_one(type_name, physical_id)

    def _follow_row(self, row: Deployment, action: str) -> None:
        now = self._clock.now()
        deadline = now + self._settings.deployment_timeout
        follow_state(
            self._records, self._links, row, action, now=now, deadline=deadline, failure=self._failure(row)
        )

    def _follow_group_state(self, group_id: str, action: str) -> None:
        group = self._records.objects([group_id]).get(group_id)
        if group is None:
            raise NotFound(f"deployment group {group_id} is gone")
        members = self._records.group_deployments(group_id)
        follow_group_state(members, lambda row: self._follow_row(row, action))
        if group.body.get("suspended") != (action == SUSPEND):
            body = {**group.body, "suspended": action == SUSPEND}
            self._records.put_object(dataclasses.replace(group, body=body))

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        physical_id = _physical_id(marker)
        if type_name == WAIT_CONDITION_HANDLE:
            return None  # made again: a new token is issued, the earlier one keeps working
        return self.observe(type_name, [physical_id]).get(physical_id)

    def _observe_one(self, type_name: str, physical_id: str) -> LiveResource:
        live = self.observe(type_name, [physical_id]).get(physical_id)
        if live is None:
            raise NotFound(f"{type_name} {physical_id} is gone")
        return live

    # Configs ------------------------------------------------------------------------------------

    def _config(self, config_id: str) -> Mapping[str, Any] | None:
        found = self._records.objects([config_id]).get(config_id)
        return None if found is None else found.body

    # Deployments --------------------------------------------------------------------------------

    def _target(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], marker: Marker
    ) -> DeploymentTarget:
        structured = type_name in (STRUCTURED_DEPLOYMENT, STRUCTURED_DEPLOYMENT_GROUP)
        return DeploymentTarget(
            deployment_id=physical_id,
            server_id=str(properties.get("server") or ""),
            stack=marker.stack,
            resource=marker.resource,
            signal_transport=str(properties.get("signal_transport") or "TEMP_URL_SIGNAL"),
            name=properties.get("name"),
            input_key=str(properties.get("input_key") or "get_input") if structured else None,
        )

    def _deploy(
        self,
        type_name: str,
        target: DeploymentTarget,
        properties: Mapping[str, Any],
        action: str,
        *,
        previous: Deployment | None = None,
        group_id: str | None = None,
        put: Callable[[Deployment, str | None], None] | None = None,
    ) -> Deployment:
        """Run the deployment for `action`, unless it does not list the action or nothing changed:
        the row that stands afterwards, as a read of it would answer (the create's answer, with no
        read of what was just written). `put` writes it (the records' `put_deployment` unless given)."""
        put = put or self._records.put_deployment
        if not target.server_id:
            raise Permanent(f"{type_name}: the server property is empty")
        config_id = str(properties.get("config") or "")
        config = self._config(config_id) if config_id else {}
        if config is None:
            raise Permanent(f"{type_name}: software config {config_id} not found")
        input_values = dict(properties.get("input_values") or {})
        _, digest = deployment_entry(target, config, input_values, action, None)
        if previous is not None and previous.config_hash == digest and previous.status == COMPLETE:
            return previous  # the same config and inputs already ran: never again
        if config.get("group") == COMPONENT:
            actions: Collection[str] = component_actions(config)
        else:
            actions = properties.get("actions") or ["CREATE", "UPDATE"]
        if action not in actions:
            if previous is None:  # kept unpublished: a DELETE run later is made from it
                entry, _ = deployment_entry(target, config, input_values, action, None)
                unpublished = Deployment(
                    target.deployment_id,
                    target.server_id,
                    target.stack,
                    target.resource,
                    action,
                    COMPLETE,
                    digest,
                    entry,
                    "Not deployed for this action",
                    group_id=group_id,
                    actions=tuple(actions),
                    published=False,
                )
                put(unpublished, None)
                return unpublished
            return previous
        signalled = target.signal_transport != NO_SIGNAL
        token = new_token() if signalled else None
        entry, digest = deployment_entry(
            target, config, input_values, action, self._links.signal_url(token) if token else None
        )
        deployment = Deployment(
            id=target.deployment_id,
            server_id=target.server_id,
            stack=target.stack,
            resource=target.resource,
            action=action,
            status=IN_PROGRESS if signalled else COMPLETE,
            config_hash=digest,
            entry=entry,
            status_reason="Deploy data available" if signalled else "Not waiting for outputs signal",
            deadline=self._clock.now() + self._settings.deployment_timeout if signalled else None,
            group_id=group_id,
            actions=tuple(actions),
        )
        put(deployment, token_digest(token) if token else None)
        return deployment

    def _run_for_delete(self, row: Deployment) -> None:
        """A deployment listing DELETE runs its config for DELETE before it goes: `Retryable`
        (the engine asks again) until that run is signalled or its time limit passes."""
        if "DELETE" not in row.actions or not row.entry:
            return
        if row.action != "DELETE":
            inputs = {item["name"]: item.get("value") for item in row.entry.get("inputs") or []}
            if inputs.get("deploy_signal_transport") == NO_SIGNAL:
                return  # nobody would say it ran: Heat deletes it at once too
            token = new_token()
            entry = rerun_entry(row.entry, row.id, "DELETE", self._links.signal_url(token), row.config_hash)
            self._records.put_deployment(
                dataclasses.replace(
                    row,
                    action="DELETE",
                    status=IN_PROGRESS,
                    status_reason="Deploy data available",
                    entry=entry,
                    outputs={},
                    deadline=self._clock.now() + self._settings.deployment_timeout,
                    published=True,
                ),
                token_digest(token),
            )
            raise Retryable("running its DELETE config on the server", after=DELETE_POLL)
        if row.status == IN_PROGRESS and self._failure(row) is None:
            raise Retryable("waiting for the signal of its DELETE run", after=DELETE_POLL)

    def _deployment_live(self, type_name: str, row: Deployment) -> LiveResource:
        suspended = is_suspended(row)
        resting = row.action in (SUSPEND, RESUME) and row.status == IN_PROGRESS and self._failure(row) is None
        if row.status == COMPLETE or resting:  # a suspend or resume under way: ready, as it was
            attributes = {
                "deploy_stdout": None,
                "deploy_stderr": None,
                "deploy_status_code": None,
                **row.outputs,
            }
            return LiveResource(
                row.id, type_name, LiveStatus.READY, attributes=attributes, suspended=suspended
            )
        reason = self._failure(row)
        if reason is not None:
            return LiveResource(
                row.id,
                type_name,
                LiveStatus.FAILED,
                attributes=dict(row.outputs),
                status_reason=reason,
                failure_is_final=True,
            )
        return LiveResource(row.id, type_name, LiveStatus.IN_PROGRESS, status_reason="waiting for its signal")

    def _failure(self, row: Deployment) -> str | None:
        if row.status == FAILED:
            return f"Deployment to server failed: {row.status_reason}"
        if row.deadline is not None and self._clock.now() >= row.deadline:
            limit = self._settings.deployment_timeout
            return f"Deployment to server failed: no signal within {limit:g} s (deploy_action {row.action})"
        return None

    # Deployment groups --------------------------------------------------------------------------

    def _deploy_group(
        self, type_name: str, group_id: str, properties: Mapping[str, Any], stack: str, action: str
    ) -> None:
        servers = {str(key): str(value) for key, value in (properties.get("servers") or {}).items()}
        members = {key: str(uuid.uuid5(ID_NAMESPACE, f"{group_id}/{key}")) for key in servers}
        known = self._records.objects([group_id]).get(group_id)
        suspended = bool(known.body.get("suspended")) if known is not None else False
        self._records.put_object(
            SoftwareObject(group_id, "deployment-group", stack, {"members": members, "suspended": suspended})
        )
        existing = {row.id: row for row in self._records.group_deployments(group_id)}
        for row_id in set(existing) - set(members.values()):
            self._records.delete_deployment(row_id)
        member_type = (
            STRUCTURED_DEPLOYMENT
            if type_name == STRUCTURED_DEPLOYMENT_GROUP
            else "OS::Heat::SoftwareDeployment"
        )
        for key, member_id in members.items():
            previous = existing.get(member_id)
            member_properties = {**properties, "server": servers[key]}
            target = self._target(member_type, member_id, member_properties, Marker(stack, key, ""))
            self._deploy(
                member_type,
                target,
                member_properties,
                action if previous else "CREATE",
                previous=previous,
                group_id=group_id,
            )

    def _group_live(self, type_name: str, group_id: str, recorded_suspended: bool) -> LiveResource:
        rows = self._records.group_deployments(group_id)
        suspended = group_is_suspended(rows, recorded_suspended)
        lives = {row.resource: self._deployment_live(type_name, row) for row in rows}
        attributes = {
            plural: {key: live.attributes.get(single) for key, live in lives.items()}
            for plural, single in (
                ("deploy_stdouts", "deploy_stdout"),
                ("deploy_stderrs", "deploy_stderr"),
                ("deploy_status_codes", "deploy_status_code"),
            )
        }
        failed = [
            f"{key}: {live.status_reason}" for key, live in lives.items() if live.status is LiveStatus.FAILED
        ]
        if failed:
            return LiveResource(
                group_id,
                type_name,
                LiveStatus.FAILED,
                attributes=attributes,
                status_reason="; ".join(sorted(failed)),
                failure_is_final=True,
            )
        if any(live.status is LiveStatus.IN_PROGRESS for live in lives.values()):
            return LiveResource(
                group_id, type_name, LiveStatus.IN_PROGRESS, status_reason="waiting for signals"
            )
        return LiveResource(group_id, type_name, LiveStatus.READY, attributes=attributes, suspended=suspended)

    # Wait conditions ----------------------------------------------------------------------------

    def _create_handle(self, physical_id: str, marker: Marker) -> LiveResource:
        token = new_token()
        self._records.put_object(
            SoftwareObject(physical_id, "handle", marker.stack, {"resource": marker.resource})
        )
        self._records.issue_token(token_digest(token), HANDLE_TOKEN, physical_id)
        endpoint = self._links.handle_endpoint()
        attributes = {
            "token": token,
            "endpoint": endpoint,
            "curl_cli": self._links.curl_cli(token),
            "signal": {"endpoint": endpoint, "token": token},
        }
        return LiveResource(physical_id, WAIT_CONDITION_HANDLE, LiveStatus.READY, attributes=attributes)

    def _start_wait(self, physical_id: str, properties: Mapping[str, Any], stack: str, resource: str) -> None:
        handle = handle_row_id(str(properties.get("handle") or ""))
        if not self._records.objects([handle]):
            raise Permanent(f"{WAIT_CONDITION}: {handle!r} is not a wait condition handle")
        wait = WaitRecord(stack, resource, handle, properties.get("count"), properties.get("timeout"))
        record_wait(self._records, self._clock, physical_id, wait)

    def _waits_live(self, objects: Mapping[str, SoftwareObject]) -> Mapping[str, LiveResource]:
        signals = self._records.handle_signals([str(item.body["handle"]) for item in objects.values()])
        now = self._clock.now()
        lives: dict[str, LiveResource] = {}
        for pid, item in objects.items():
            verdict = wait_verdict(
                signals.get(str(item.body["handle"]), ()),
                int(item.body["count"]),
                timed_out=now >= float(item.body["deadline"]),
                name=str(item.body.get("resource")),
            )
            if isinstance(verdict, Completed):
                lives[pid] = LiveResource(
                    pid, WAIT_CONDITION, LiveStatus.READY, attributes={"data": verdict.data}
                )
            elif isinstance(verdict, WaitFailed):
                lives[pid] = LiveResource(
                    pid,
                    WAIT_CONDITION,
                    LiveStatus.FAILED,
                    status_reason=verdict.reason,
                    failure_is_final=True,
                )
            else:
                reason = f"{verdict.received} of {item.body['count']} signals received"
                lives[pid] = LiveResource(pid, WAIT_CONDITION, LiveStatus.IN_PROGRESS, status_reason=reason)
        return lives
