"""OS::Nova::KeyPair: named by the template, so the name is the physical id.

Nova key pairs carry no tags or metadata, so there is no marker to find. A create that meets an
existing key pair of the same name adopts it when the template gave its public key and the keys
are equal (the same key pair in every way that matters); otherwise the conflict is permanent, as
in Heat. A key pair Nova generated returns its private key once, in the create answer: it is
exposed as the `private_key` attribute only when `save_private_key` asks for it.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound, Permanent, Retryable
from providers.openstack.cloud_apis import CloudApis

TYPE_NAME = "OS::Nova::KeyPair"


@dataclass(frozen=True)
class KeyPairHandler:
    apis: CloudApis

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body: dict[str, Any] = {"name": properties["name"]}
        for heat_key, nova_key in (("public_key", "public_key"), ("type", "type"), ("user", "user_id")):
            if properties.get(heat_key):
                body[nova_key] = properties[heat_key]
        try:
            created = self.apis.compute.post("/os-keypairs", {"keypair": body})["keypair"]
        except Retryable:
            existing = self.existing(properties["name"])
            if existing is None:
                raise
            return adopted(existing, properties)
        keep_private = bool(properties.get("save_private_key"))
        return live_keypair(created, private_key=created.get("private_key") if keep_private else None)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        raise Permanent(f"{TYPE_NAME} has no property that changes in place ({sorted(changed)})")

    def delete(self, physical_id: str) -> None:
        self.apis.compute.delete(f"/os-keypairs/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        listed = (entry["keypair"] for entry in self.apis.compute.list_all("/os-keypairs", "keypairs"))
        return {item["name"]: live_keypair(item) for item in listed if item["name"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # key pairs hold no marker; `create` adopts an identical one instead

    def existing(self, name: str) -> dict[str, Any] | None:
        try:
            found: dict[str, Any] = self.apis.compute.get(f"/os-keypairs/{name}")["keypair"]
        except NotFound:
            return None
        return found


def adopted(existing: Mapping[str, Any], properties: Mapping[str, Any]) -> LiveResource:
    """The key pair already there, when it is the template's (same public key); else Permanent."""
    if properties.get("public_key") and same_key(existing.get("public_key"), properties["public_key"]):
        return live_keypair(existing)
    raise Permanent(
        f"a key pair named {properties['name']!r} already exists with another key (key pairs hold no "
        "marker: give its public_key to adopt it, or choose another name)"
    )


def same_key(left: Any, right: Any) -> bool:
    return isinstance(left, str) and isinstance(right, str) and left.split()[:2] == right.split()[:2]


def live_keypair(item: Mapping[str, Any], private_key: str | None = None) -> LiveResource:
    shown = {key: value for key, value in item.items() if key != "private_key"}
    return LiveResource(
        physical_id=item["name"],
        type=TYPE_NAME,
        status=LiveStatus.READY,
        properties={"name": item["name"], "public_key": item.get("public_key"), "type": item.get("type")},
        attributes={"public_key": item.get("public_key"), "private_key": private_key or "", "show": shown},
    )
