"""Barbican (key-manager v1) over HTTP, under `/key-manager/v1`: secrets (stored, read, their
payload read as text, their user metadata set, deleted) and containers (generic, certificate, RSA).

References are URLs, as Barbican answers them (`.../v1/secrets/{uuid}`); lists are paged by
`limit` and `offset` with a `next` URL and a `total`, and filtered by `name`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body

SERVICE = "barbican"
ROOT = "/key-manager/v1"
MAX_LIMIT = 100  # Barbican's largest page


class Barbican:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/key-manager", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("POST", ROOT + "/secrets", self.create_secret, SERVICE),
            Route.of("GET", ROOT + "/secrets", self.list_secrets, SERVICE),
            Route.of("GET", ROOT + "/secrets/{id}", self.get_secret, SERVICE),
            Route.of("GET", ROOT + "/secrets/{id}/payload", self.get_payload, SERVICE),
            Route.of("GET", ROOT + "/secrets/{id}/metadata", self.get_metadata, SERVICE),
            Route.of("PUT", ROOT + "/secrets/{id}/metadata", self.put_metadata, SERVICE),
            Route.of("DELETE", ROOT + "/secrets/{id}", self.delete_secret, SERVICE),
            Route.of("POST", ROOT + "/containers", self.create_container, SERVICE),
            Route.of("GET", ROOT + "/containers", self.list_containers, SERVICE),
            Route.of("GET", ROOT + "/containers/{id}", self.get_container, SERVICE),
            Route.of("DELETE", ROOT + "/containers/{id}", self.delete_container, SERVICE),
            Route.of("POST", ROOT + "/orders", self.create_order, SERVICE),
            Route.of("GET", ROOT + "/orders", self.list_orders, SERVICE),
            Route.of("GET", ROOT + "/orders/{id}", self.get_order, SERVICE),
            Route.of("DELETE", ROOT + "/orders/{id}", self.delete_order, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v1",
            "status": "CURRENT",
            "links": [{"rel": "self", "href": request.url(ROOT + "/")}],
        }
        return reply(200, {"versions": [version]})

    # secrets
    def create_secret(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        created = self.cloud.create("secrets", self._body(request))
        return reply(201, {"secret_ref": self._ref(request, "secrets", created["id"])})

    def list_secrets(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "secrets", self._secret)

    def get_secret(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._secret(request, self.cloud.get("secrets", params["id"])))

    def get_payload(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        secret = self.cloud.get("secrets", params["id"])
        if secret.get("payload") is None:
            raise BadRequest("No payload: this secret holds no data.")
        response = ApiResponse(200, str(secret["payload"]))
        response.headers["Content-Type"] = secret["content_types"].get("default", "text/plain")
        return response

    def get_metadata(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"metadata": self.cloud.get("secrets", params["id"])["metadata"]})

    def put_metadata(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        metadata = self._body(request).get("metadata")
        if not isinstance(metadata, Mapping):
            raise BadRequest(
                "Provided object does not match schema 'Metadata': 'metadata' is a required property"
            )
        updated = self.cloud.update("secrets", params["id"], {"metadata": dict(metadata)})
        return reply(201, {"metadata_ref": self._ref(request, "secrets", updated["id"]) + "/metadata"})

    def delete_secret(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("secrets", params["id"])
        return reply(204)

    # containers
    def create_container(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        created = self.cloud.create("secret_containers", self._body(request))
        return reply(201, {"container_ref": self._ref(request, "containers", created["id"])})

    def list_containers(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "secret_containers", self._container)

    def get_container(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._container(request, self.cloud.get("secret_containers", params["id"])))

    def delete_container(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("secret_containers", params["id"])
        return reply(204)

    # orders
    def create_order(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        created = self.cloud.create("orders", self._body(request))
        return reply(202, {"order_ref": self._ref(request, "orders", created["id"])})

    def list_orders(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "orders", self._order)

    def get_order(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._order(request, self.cloud.get("orders", params["id"])))

    def delete_order(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("orders", params["id"])
        return reply(204)

    def _order(self, request: ApiRequest, body: Body) -> Body:
        shown = {key: value for key, value in body.items() if key != "id" and not key.startswith("_")}
        shown["order_ref"] = self._ref(request, "orders", body["id"])
        if body["status"] == "ACTIVE" and body.get("_secret_id"):
            shown["secret_ref"] = self._ref(request, "secrets", body["_secret_id"])
        if body["status"] == "ACTIVE" and body.get("_container_id"):
            shown["container_ref"] = self._ref(request, "containers", body["_container_id"])
        return shown

    # shared
    def _listed(self, request: ApiRequest, collection: str, show: Any) -> ApiResponse:
        try:
            limit = min(int(request.first("limit") or 10), MAX_LIMIT)
            offset = int(request.first("offset") or 0)
        except ValueError as error:
            raise BadRequest(f"Invalid limit or offset: {error}") from error
        name = request.first("name")
        everything = self.cloud.list(collection, name=name) if name else self.cloud.list(collection)
        page = everything[offset : offset + limit]
        key = {"secret_containers": "containers"}.get(collection, collection)
        body: dict[str, Any] = {key: [show(request, item) for item in page], "total": len(everything)}
        if offset + limit < len(everything):
            query = {
                **{k: v for k, v in request.query.items()},
                "limit": str(limit),
                "offset": str(offset + limit),
            }
            body["next"] = request.url(request.path, query)
        return reply(200, body)

    def _secret(self, request: ApiRequest, body: Body) -> Body:
        shown = {key: value for key, value in body.items() if key not in ("payload", "metadata", "id")}
        return {**shown, "secret_ref": self._ref(request, "secrets", body["id"])}

    def _container(self, request: ApiRequest, body: Body) -> Body:
        shown = {key: value for key, value in body.items() if key != "id"}
        shown["secret_refs"] = [
            {**item, "secret_ref": item["secret_ref"] if "/" in item["secret_ref"] else
             self._ref(request, "secrets", item["secret_ref"])}
            for item in body["secret_refs"]
        ]  # fmt: skip
        return {**shown, "container_ref": self._ref(request, "containers", body["id"])}

    @staticmethod
    def _ref(request: ApiRequest, kind: str, item_id: str) -> str:
        return request.url(f"{ROOT}/{kind}/{item_id}")

    @staticmethod
    def _body(request: ApiRequest) -> dict[str, Any]:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        return dict(request.body)
