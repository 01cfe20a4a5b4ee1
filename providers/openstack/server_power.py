"""Suspending and resuming servers (Heat's stack suspend and resume) through openstacksdk.

The action is the SDK's own (`suspend_server`, `resume_server`: `POST /servers/{id}/action`); Nova
answers 202 and moves the server in the background, so each call first reads the server: already
there, it is returned as it is; otherwise the action is sent and the server read again, and one not
there yet is a `Retryable` (the engine asks again later, and Nova refuses a second action while the
first is under way with 409, a conflict, as it refuses one from a state that forbids it: a stopped
server suspended, say).
"""

from __future__ import annotations

from dataclasses import dataclass

from providers.interface import LiveResource, Retryable
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.errors import sdk_call_errors
from providers.openstack.server_live import live_server

# action -> the status it leaves the server in
REACHED = {"suspend": "SUSPENDED", "resume": "ACTIVE"}
SETTLING = 2.0  # seconds before asking again while Nova is still moving the server


@dataclass(frozen=True)
class ServerPower:
    apis: CloudApis

    def suspend(self, physical_id: str) -> LiveResource:
        return self._moved(physical_id, "suspend")

    def resume(self, physical_id: str) -> LiveResource:
        return self._moved(physical_id, "resume")

    def _moved(self, physical_id: str, action: str) -> LiveResource:
        wanted = REACHED[action]
        server = self._read(physical_id)
        if server.get("status") == wanted:
            return live_server(server, self.apis.names)
        proxy = self.apis.compute.proxy
        with sdk_call_errors(f"{action} server {physical_id}"):
            if action == "suspend":
                proxy.suspend_server(physical_id)
            else:
                proxy.resume_server(physical_id)
        server = self._read(physical_id)
        if server.get("status") != wanted:
            status = server.get("status")
            raise Retryable(f"server {physical_id} is still {status}, on its way to {wanted}", SETTLING)
        return live_server(server, self.apis.names)

    def _read(self, physical_id: str) -> dict[str, object]:
        server: dict[str, object] = self.apis.compute.get(f"/servers/{physical_id}")["server"]
        return server
