"""Per-project quotas over HTTP, each under its service's own path and body key: Nova's and
Cinder's `os-quota-sets/{project_id}` (`quota_set`), Neutron's `quotas/{project_id}` (`quota`).
`PUT` sets limits (the item is made on first use), `GET` shows them with the defaults, `DELETE`
reverts to the defaults. Nova refuses its network limits from microversion 2.36, as Nova does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.microversions import as_tuple
from providers.simulated.quota_sets import COMPUTE_NETWORK_LIMITS, QuotaSets

VersionedHandler = Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]
Handler = Callable[[ApiRequest, Mapping[str, str]], ApiResponse]


class QuotaFace:
    def __init__(self, cloud: SimulatedCloud, quotas: QuotaSets, key: str) -> None:
        self.cloud = cloud
        self.quotas = quotas
        self.key = key

    def show(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        found = self.cloud.list(self.quotas.collection, ids=[params["id"]])
        return reply(200, {self.key: self.quotas.shown(params["id"], found[0] if found else None)})

    def set_limits(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        limits = request.member(self.key)
        limits.pop("force", None)
        if self.cloud.list(self.quotas.collection, ids=[params["id"]]):
            body = self.cloud.update(self.quotas.collection, params["id"], limits)
        else:
            body = self.cloud.create(self.quotas.collection, {**limits, "id": params["id"]})
        return reply(200, {self.key: self.quotas.shown(params["id"], body)})

    def revert(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        with contextlib.suppress(ItemNotFound):  # a project on the defaults already
            self.cloud.delete(self.quotas.collection, params["id"])
        return reply(204 if self.key == "quota" else 202)

    def versioned(self) -> list[tuple[str, str, VersionedHandler]]:
        """The table Nova's and Cinder's faces take (their handlers are told the microversion)."""
        return [
            ("GET", "/os-quota-sets/{id}", lambda request, params, version: self.show(request, params)),
            ("PUT", "/os-quota-sets/{id}", self._nova_checked),
            ("DELETE", "/os-quota-sets/{id}", lambda request, params, version: self.revert(request, params)),
        ]

    def _nova_checked(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if self.quotas.collection == "compute_quotas" and as_tuple(version) >= as_tuple("2.36"):
            given = set(request.member(self.key)) & COMPUTE_NETWORK_LIMITS
            if given:
                unexpected = ", ".join(sorted(given))
                raise BadRequest(f"Additional properties are not allowed ({unexpected} were unexpected)")
        return self.set_limits(request, params)
