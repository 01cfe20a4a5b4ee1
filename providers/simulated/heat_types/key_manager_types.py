"""OS::Barbican::Secret and the generic, certificate and RSA containers on the simulated cloud, as
the OpenStack provider speaks them over HTTP: a physical id is a reference URL, a secret's marker is
a metadata entry, an unnamed secret or container takes Heat's default name."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.marker_text import METADATA_VALUE, bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

ROOT = "http://simulated.invalid/key-manager/v1"
MARKER_KEY = "reconciler-marker"
SECRET_KEYS = ("name", "payload", "payload_content_type", "payload_content_encoding", "secret_type",
               "algorithm", "bit_length", "mode", "expiration")  # fmt: skip
CONTAINER_NAMES: Mapping[str, Mapping[str, str]] = {
    "certificate": {
        "certificate_ref": "certificate",
        "private_key_ref": "private_key",
        "private_key_passphrase_ref": "private_key_passphrase",
        "intermediates_ref": "intermediates",
    },
    "rsa": {
        "private_key_ref": "private_key",
        "private_key_passphrase_ref": "private_key_passphrase",
        "public_key_ref": "public_key",
    },
}


def default_name(marker: Marker) -> str:
    return bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}")


def uuid_of(reference: str) -> str:
    return reference.rstrip("/").rsplit("/", 1)[-1]


class Secret:
    type_name: ClassVar[str] = "OS::Barbican::Secret"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = {key: properties[key] for key in SECRET_KEYS if properties.get(key) is not None}
        request["name"] = properties.get("name") or default_name(marker)
        created = cloud.create("secrets", request)
        stored = cloud.update(
            "secrets", created["id"], {"metadata": {MARKER_KEY: METADATA_VALUE.fitted(marker.tag)}}
        )
        return self.live(stored, marker, with_payload=True)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{self.type_name} has no property that changes in place ({sorted(changed)})")

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("secrets", uuid_of(physical_id))

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {uuid_of(physical_id) for physical_id in physical_ids}
        return {
            live.physical_id: live
            for body in cloud.list("secrets")
            if body["id"] in wanted
            for live in [self.live(body, None)]
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list("secrets", tags=[f"{MARKER_KEY}={METADATA_VALUE.fitted(marker.tag)}"])
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None, *, with_payload: bool = False) -> LiveResource:
        attributes: dict[str, Any] = {"status": body["status"], "show": shown(body)}
        if with_payload and body.get("payload") is not None:
            attributes["decrypted_payload"] = body["payload"]
        properties = {
            key: body.get(key)
            for key in ("name", "secret_type", "algorithm", "bit_length", "mode", "expiration")
        }
        properties["payload_content_type"] = body["content_types"].get("default")
        return LiveResource(
            f"{ROOT}/secrets/{body['id']}", self.type_name, LiveStatus.READY, properties, attributes, marker
        )


class GenericContainer:
    type_name: ClassVar[str] = "OS::Barbican::GenericContainer"
    kind: ClassVar[str] = "generic"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def secret_refs(self, properties: Mapping[str, Any]) -> list[dict[str, str]]:
        if self.kind == "generic":
            return [
                {"name": str(item.get("name")), "secret_ref": str(item.get("ref"))}
                for item in properties.get("secrets") or ()
            ]
        names = CONTAINER_NAMES[self.kind]
        return [
            {"name": name, "secret_ref": str(properties[key])}
            for key, name in names.items()
            if properties.get(key)
        ]

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = {
            "name": properties.get("name") or default_name(marker),
            "type": self.kind,
            "secret_refs": self.secret_refs(properties),
        }
        return self.live(cloud.create("secret_containers", request), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{self.type_name} has no property that changes in place ({sorted(changed)})")

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("secret_containers", uuid_of(physical_id))

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {uuid_of(physical_id) for physical_id in physical_ids}
        return {
            live.physical_id: live
            for body in cloud.list("secret_containers")
            if body["id"] in wanted
            for live in [self.live(body, None)]
        }

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = [
            body
            for body in cloud.list("secret_containers", name=default_name(marker))
            if body["type"] == self.kind
        ]
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None) -> LiveResource:
        reference = f"{ROOT}/containers/{body['id']}"
        attributes = {
            "status": body["status"],
            "container_ref": reference,
            "secret_refs": {item["name"]: item["secret_ref"] for item in body["secret_refs"]},
            "consumers": list(body["consumers"]),
            "show": shown(body),
        }
        return LiveResource(
            reference, self.type_name, LiveStatus.READY, {"name": body.get("name")}, attributes, marker
        )


class CertificateContainer(GenericContainer):
    type_name: ClassVar[str] = "OS::Barbican::CertificateContainer"
    kind: ClassVar[str] = "certificate"


class RSAContainer(GenericContainer):
    type_name: ClassVar[str] = "OS::Barbican::RSAContainer"
    kind: ClassVar[str] = "rsa"


ORDER_META_KEYS = ("name", "algorithm", "bit_length", "mode", "payload_content_type", "expiration",
                   "request_type", "subject_dn", "source_container_ref", "ca_id", "profile", "request_data",
                   "pass_phrase")  # fmt: skip
STATUSES = {"ACTIVE": LiveStatus.READY, "PENDING": LiveStatus.IN_PROGRESS, "ERROR": LiveStatus.FAILED}


class Order:
    type_name: ClassVar[str] = "OS::Barbican::Order"

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        meta = {key: properties[key] for key in ORDER_META_KEYS if properties.get(key) is not None}
        meta["name"] = properties.get("name") or default_name(marker)
        return self.live(cloud.create("orders", {"type": properties.get("type"), "meta": meta}), marker)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{self.type_name} has no property that changes in place ({sorted(changed)})")

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete("orders", uuid_of(physical_id))

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = {uuid_of(physical_id) for physical_id in physical_ids}
        found = (self.live(body, None) for body in cloud.list("orders") if body["id"] in wanted)
        return {live.physical_id: live for live in found}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        name = default_name(marker)
        found = [body for body in cloud.list("orders") if body["meta"].get("name") == name]
        return self.live(found[0], marker) if found else None

    def live(self, body: Body, marker: Marker | None) -> LiveResource:
        active = body["status"] == "ACTIVE"
        attributes = {
            "status": body["status"],
            "order_ref": f"{ROOT}/orders/{body['id']}",
            "secret_ref": f"{ROOT}/secrets/{body['_secret_id']}"
            if active and body.get("_secret_id")
            else None,
            "container_ref": (
                f"{ROOT}/containers/{body['_container_id']}" if active and body.get("_container_id") else None
            ),
            "show": shown(body),
        }
        meta = body["meta"]
        properties = {
            "type": body["type"],
            **{key: meta.get(key) for key in ("name", "algorithm", "bit_length", "mode")},
        }
        status = STATUSES.get(body["status"], LiveStatus.IN_PROGRESS)
        return LiveResource(
            f"{ROOT}/orders/{body['id']}", self.type_name, status, properties, attributes, marker
        )


TYPES = (Secret, GenericContainer, CertificateContainer, RSAContainer, Order)
