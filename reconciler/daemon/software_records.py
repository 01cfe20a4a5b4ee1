"""The software provider's `SoftwareRecords`, kept in the state database.

`providers` may not import `state` nor the other way round: this entry-layer adapter is where the
two meet, translating the provider's records to the store's rows and back.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Mapping, Sequence
from concurrent.futures import Future

from providers.heat.agent_links import AgentLinks
from providers.heat.software_records import Deployment, HandleSignal, SoftwareObject
from reconciler.daemon.settings import DaemonSettings
from state import Store
from state.software import DeploymentRow, ObjectRow, SignalRow, SoftwareStore


def deployment_of(row: DeploymentRow) -> Deployment:
    return Deployment(**{field.name: getattr(row, field.name) for field in dataclasses.fields(DeploymentRow)})


class StoredSoftware:
    """`providers.heat.software_records.SoftwareRecords` on a `state.software.SoftwareStore`."""

    def __init__(self, store: SoftwareStore) -> None:
        self.store = store

    def put_object(self, item: SoftwareObject) -> None:
        self.store.put_object(ObjectRow(item.id, item.kind, item.stack, item.body, item.created_at))

    def objects(self, ids: Collection[str]) -> Mapping[str, SoftwareObject]:
        return {
            key: SoftwareObject(row.id, row.kind, row.stack, row.body, row.created_at)
            for key, row in self.store.objects(ids).items()
        }

    def delete_object(self, object_id: str) -> None:
        self.store.delete_object(object_id)

    def put_deployment(self, deployment: Deployment, token_digest: str | None) -> None:
        self.submit_deployment(deployment, token_digest).result()

    def submit_deployment(self, deployment: Deployment, token_digest: str | None) -> Future[None]:
        fields = {field.name: getattr(deployment, field.name) for field in dataclasses.fields(Deployment)}
        return self.store.submit_deployment(DeploymentRow(**fields), token_digest)

    def deployments(self, ids: Collection[str]) -> Mapping[str, Deployment]:
        return {key: deployment_of(row) for key, row in self.store.deployments(ids).items()}

    def group_deployments(self, group_id: str) -> Sequence[Deployment]:
        return [deployment_of(row) for row in self.store.group_deployments(group_id)]

    def delete_deployment(self, deployment_id: str) -> None:
        self.store.delete_deployment(deployment_id)

    def issue_token(self, digest: str, kind: str, subject: str) -> None:
        self.store.issue_token(digest, kind, subject)

    def bind_server(self, subject: str, server_id: str) -> None:
        self.store.bind_server(subject, server_id)

    def revoke_server(self, server_id: str) -> None:
        self.store.revoke_server(server_id)

    def revoke_tokens(self, subject: str) -> None:
        self.store.revoke_tokens(subject)

    def handle_signals(self, handle_ids: Collection[str]) -> Mapping[str, Sequence[HandleSignal]]:
        return {
            key: [HandleSignal(row.signal_id, row.status, row.reason, row.data) for row in rows]
            for key, rows in self.store.handle_signals(handle_ids).items()
        }

    def delete_handle_signals(self, handle_id: str) -> None:
        self.store.delete_handle_signals(handle_id)


def signal_row(signal: HandleSignal) -> SignalRow:
    return SignalRow(signal.signal_id, signal.status, signal.reason, signal.data)


def stored_software(store: Store, agent_url: str = "") -> tuple[StoredSoftware, AgentLinks]:
    """What `CloudRoot(software=...)` takes: the store's software rows and the agent API's URLs.

    Commands that run no agent API (`apply`, `plan`, `check`) still serve the software types; a
    deployment waiting for a signal then waits until a daemon's agent API receives it.
    """
    return StoredSoftware(store.software()), AgentLinks(DaemonSettings(agent_url=agent_url).agent_base_url())
