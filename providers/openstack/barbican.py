"""OS::Barbican::Secret and the containers (GenericContainer, CertificateContainer, RSAContainer).

As in Heat, a physical id is the reference Barbican answers with (`.../v1/secrets/{uuid}`), so
`get_resource` gives what other resources take as `secret_ref` or `container_ref`. A secret carries
the marker in its user metadata (set by a second request: Barbican takes none in the create), and
an unnamed secret or container is given Heat's default name, which `find_by_marker` lists by;
containers hold no metadata, so the name is their only mark. Nothing of either changes in place.
Observation is the paged list of every secret or container (Barbican pages by `offset`, at most 100
a page); the payload is read once, at the create that sent it, never by observation.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import MARKER_METADATA_KEY, marker_metadata_value, physical_name

SECRET_TYPE = "OS::Barbican::Secret"
SECRET_KEYS = ("name", "payload", "payload_content_type", "payload_content_encoding", "secret_type",
               "algorithm", "bit_length", "mode", "expiration")  # fmt: skip
SHOWN_SECRET_KEYS = ("name", "secret_type", "algorithm", "bit_length", "mode", "expiration")
PAGE = 100
STATUSES = {"ACTIVE": LiveStatus.READY, "PENDING": LiveStatus.IN_PROGRESS, "ERROR": LiveStatus.FAILED}
# container type -> its Heat type and which of the Heat properties name which secret
CONTAINERS: Mapping[str, tuple[str, Mapping[str, str]]] = {
    "generic": ("OS::Barbican::GenericContainer", {}),
    "certificate": (
        "OS::Barbican::CertificateContainer",
        {"certificate_ref": "certificate", "private_key_ref": "private_key",
         "private_key_passphrase_ref": "private_key_passphrase", "intermediates_ref": "intermediates"},
    ),
    "rsa": (
        "OS::Barbican::RSAContainer",
        {"private_key_ref": "private_key", "private_key_passphrase_ref": "private_key_passphrase",
         "public_key_ref": "public_key"},
    ),
}  # fmt: skip


def path_of(reference: str, kind: str) -> str:
    """The path under the service of a secret or container reference (or of a bare uuid)."""
    return f"/{kind}/{reference.rstrip('/').rsplit('/', 1)[-1]}"


def listed(
    api: JsonApi, path: str, key: str, params: Mapping[str, str] | None = None
) -> Iterator[dict[str, Any]]:
    """Every item of a Barbican list, paged by `offset` (one request per page)."""
    offset = 0
    while True:
        page = api.get(path, {"limit": PAGE, "offset": offset, **(params or {})})
        items: list[dict[str, Any]] = page.get(key) or []
        yield from items
        offset += len(items)
        if not items or not page.get("next"):
            return


@dataclass(frozen=True)
class SecretHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = {key: properties[key] for key in SECRET_KEYS if properties.get(key) is not None}
        body["name"] = properties.get("name") or physical_name(marker)
        reference = str(self.api.post("/secrets", body)["secret_ref"])
        metadata = {"metadata": {MARKER_METADATA_KEY: marker_metadata_value(marker)}}
        self.api.put(f"{path_of(reference, 'secrets')}/metadata", metadata)
        secret = self.api.get(path_of(reference, "secrets"))
        return live_secret(secret, marker, properties.get("payload"))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{SECRET_TYPE} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        self.api.delete(path_of(physical_id, "secrets"))

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {physical_id.rsplit("/", 1)[-1]: physical_id for physical_id in physical_ids}
        if not wanted:
            return {}
        found = {}
        for secret in listed(self.api, "/secrets", "secrets"):
            uuid = str(secret["secret_ref"]).rsplit("/", 1)[-1]
            if uuid in wanted:
                found[wanted[uuid]] = live_secret(secret, None, None, physical_id=wanted[uuid])
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        for secret in listed(self.api, "/secrets", "secrets", {"name": physical_name(marker)}):
            metadata = (
                self.api.get(f"{path_of(secret['secret_ref'], 'secrets')}/metadata").get("metadata") or {}
            )
            if metadata.get(MARKER_METADATA_KEY) == marker_metadata_value(marker):
                return live_secret(secret, marker, None)
        return None


def live_secret(
    secret: Mapping[str, Any], marker: Marker | None, payload: Any, physical_id: str | None = None
) -> LiveResource:
    status = str(secret.get("status"))
    attributes: dict[str, Any] = {"status": status, "show": dict(secret)}
    if payload is not None:
        attributes["decrypted_payload"] = payload
    properties = {key: secret.get(key) for key in SHOWN_SECRET_KEYS}
    properties["payload_content_type"] = (secret.get("content_types") or {}).get("default")
    return LiveResource(
        physical_id=physical_id or str(secret["secret_ref"]),
        type=SECRET_TYPE,
        status=STATUSES.get(status, LiveStatus.IN_PROGRESS),
        properties=properties,
        attributes=attributes,
        marker=marker,
    )


@dataclass(frozen=True)
class ContainerHandler:
    api: JsonApi
    kind: str  # "generic", "certificate" or "rsa"

    @property
    def type_name(self) -> str:
        return CONTAINERS[self.kind][0]

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = {
            "name": properties.get("name") or physical_name(marker),
            "type": self.kind,
            "secret_refs": self.secret_refs(properties),
        }
        reference = str(self.api.post("/containers", body)["container_ref"])
        return self.live(self.api.get(path_of(reference, "containers")), marker)

    def secret_refs(self, properties: Mapping[str, Any]) -> list[dict[str, str]]:
        if self.kind == "generic":
            return [
                {"name": str(item.get("name")), "secret_ref": str(item.get("ref"))}
                for item in properties.get("secrets") or ()
            ]
        names = CONTAINERS[self.kind][1]
        return [
            {"name": name, "secret_ref": str(properties[key])}
            for key, name in names.items()
            if properties.get(key)
        ]

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{self.type_name} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        self.api.delete(path_of(physical_id, "containers"))

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {physical_id.rsplit("/", 1)[-1]: physical_id for physical_id in physical_ids}
        if not wanted:
            return {}
        found = {}
        for container in listed(self.api, "/containers", "containers"):
            uuid = str(container["container_ref"]).rsplit("/", 1)[-1]
            if uuid in wanted:
                found[wanted[uuid]] = self.live(container, None, wanted[uuid])
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        for container in listed(self.api, "/containers", "containers", {"name": physical_name(marker)}):
            if container.get("type") == self.kind:
                return self.live(container, marker)
        return None

    def live(
        self, container: Mapping[str, Any], marker: Marker | None, physical_id: str | None = None
    ) -> LiveResource:
        status = str(container.get("status"))
        references = list(container.get("secret_refs") or ())
        attributes = {
            "status": status,
            "container_ref": container.get("container_ref"),
            "secret_refs": {str(item.get("name")): item.get("secret_ref") for item in references},
            "consumers": list(container.get("consumers") or ()),
            "show": dict(container),
        }
        return LiveResource(
            physical_id=physical_id or str(container["container_ref"]),
            type=self.type_name,
            status=STATUSES.get(status, LiveStatus.IN_PROGRESS),
            properties={"name": container.get("name")},
            attributes=attributes,
            marker=marker,
        )


ORDER_TYPE = "OS::Barbican::Order"
ORDER_META_KEYS = ("name", "algorithm", "bit_length", "mode", "payload_content_type", "expiration",
                   "request_type", "subject_dn", "source_container_ref", "ca_id", "profile", "request_data",
                   "pass_phrase")  # fmt: skip


@dataclass(frozen=True)
class OrderHandler:
    """An order's physical id is its `order_ref`; it is PENDING until Barbican has made what it asks
    for (a key: a secret; an asymmetric or certificate order: a container). Orders hold no metadata:
    an unnamed one is given Heat's default name, which `find_by_marker` looks for."""

    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        meta = {key: properties[key] for key in ORDER_META_KEYS if properties.get(key) is not None}
        meta["name"] = properties.get("name") or physical_name(marker)
        reference = str(self.api.post("/orders", {"type": properties["type"], "meta": meta})["order_ref"])
        return live_order(self.api.get(path_of(reference, "orders")), marker)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{ORDER_TYPE} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        self.api.delete(path_of(physical_id, "orders"))

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {physical_id.rsplit("/", 1)[-1]: physical_id for physical_id in physical_ids}
        if not wanted:
            return {}
        found = {}
        for order in listed(self.api, "/orders", "orders"):
            uuid = str(order["order_ref"]).rsplit("/", 1)[-1]
            if uuid in wanted:
                found[wanted[uuid]] = live_order(order, None, wanted[uuid])
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        name = physical_name(marker)
        found = next(
            (
                order
                for order in listed(self.api, "/orders", "orders")
                if (order.get("meta") or {}).get("name") == name
            ),
            None,
        )
        return None if found is None else live_order(found, marker)


def live_order(
    order: Mapping[str, Any], marker: Marker | None, physical_id: str | None = None
) -> LiveResource:
    status = str(order.get("status"))
    meta = order.get("meta") or {}
    attributes = {
        "status": status,
        "order_ref": order.get("order_ref"),
        "secret_ref": order.get("secret_ref"),
        "container_ref": order.get("container_ref"),
        "show": dict(order),
    }
    properties = {
        "type": order.get("type"),
        **{key: meta.get(key) for key in ("name", "algorithm", "bit_length", "mode")},
    }
    return LiveResource(
        physical_id=physical_id or str(order["order_ref"]),
        type=ORDER_TYPE,
        status=STATUSES.get(status, LiveStatus.IN_PROGRESS),
        properties=properties,
        attributes=attributes,
        marker=marker,
        status_reason=str(order.get("error_reason") or "") if status == "ERROR" else "",
    )
