"""Barbican's secrets and containers (key-manager v1).

A secret is stored with its payload, which only the payload call reads back; its user metadata
(`metadata`, indexed) is set by a call of its own, as Barbican's is. A container (generic,
certificate or RSA) names secrets by reference; each reference must name a secret this project
holds, and a certificate or RSA container accepts only the names its type defines. A secret named
by a container is not protected from deletion (Barbican does not protect it either).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

BARBICAN_QUOTA_STATUS = 403
SECRET_TYPES = frozenset({"symmetric", "public", "private", "passphrase", "certificate", "opaque"})
CONTENT_TYPES = frozenset({"text/plain", "application/octet-stream"})
CONTAINER_NAMES = {
    "generic": None,
    "certificate": frozenset({"certificate", "private_key", "private_key_passphrase", "intermediates"}),
    "rsa": frozenset({"private_key", "private_key_passphrase", "public_key"}),
}


class Secrets:
    collection = "secrets"
    quota_status = BARBICAN_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        kind = request.get("secret_type", "opaque")
        if kind not in SECRET_TYPES:
            raise BadRequest(
                f"Invalid input for field 'secret_type': '{kind}' is not one of {sorted(SECRET_TYPES)}"
            )
        payload = request.get("payload")
        content_type = request.get("payload_content_type")
        if payload is not None and content_type not in CONTENT_TYPES:
            raise BadRequest("Provided object does not match schema 'Secret': If 'payload' is supplied, "
                             "'payload_content_type' must also be supplied.")  # fmt: skip
        if payload == "":
            raise BadRequest(
                "Provided object does not match schema 'Secret': If 'payload' specified, must be non empty"
            )
        now = world.timestamp()
        return {
            "id": world.new_id(),
            "name": request.get("name"),
            "status": "ACTIVE",
            "secret_type": kind,
            "algorithm": request.get("algorithm"),
            "bit_length": request.get("bit_length"),
            "mode": request.get("mode"),
            "expiration": request.get("expiration"),
            "content_types": {"default": content_type} if payload is not None else {},
            "payload": payload,
            "payload_content_encoding": request.get("payload_content_encoding"),
            "metadata": {},
            "created": now,
            "updated": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        if set(request) != {"metadata"}:
            raise BadRequest("A secret's metadata is all that changes after it is stored.")
        metadata = {str(key).lower(): str(value) for key, value in (request["metadata"] or {}).items()}
        return {**body, "metadata": metadata, "updated": world.timestamp()}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


class Containers:
    collection = "secret_containers"
    quota_status = BARBICAN_QUOTA_STATUS
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        kind = request.get("type")
        if kind not in CONTAINER_NAMES:
            raise BadRequest(
                f"Invalid input for field 'type': '{kind}' is not one of {sorted(CONTAINER_NAMES)}"
            )
        references = request.get("secret_refs") or []
        allowed = CONTAINER_NAMES[kind]
        for reference in references:
            name, secret_id = reference.get("name"), str(reference.get("secret_ref", "")).rsplit("/", 1)[-1]
            if allowed is not None and name not in allowed:
                raise BadRequest(
                    f"Provided object does not match schema 'Container': {name!r} is not a valid secret name "
                    f"for a {kind} container"
                )
            if secret_id not in world.inventory("secrets"):
                # Barbican answers 404 here; a 400 says what it is to the provider: no retry mends it
                raise BadRequest(f"Secret provided for '{name}' doesn't exist.")
        now = world.timestamp()
        return {
            "id": world.new_id(),
            "name": request.get("name"),
            "type": kind,
            "status": "ACTIVE",
            "secret_refs": [dict(reference) for reference in references],
            "consumers": [],
            "created": now,
            "updated": now,
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest("A container does not change after it is stored.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


ORDER_BUILDING = Building(building="PENDING", ready="ACTIVE", error="ERROR")
ORDER_TYPES = frozenset({"key", "asymmetric", "certificate"})
SECRET_TYPE_OF = {"private_key": "private", "public_key": "public", "certificate": "certificate"}


class Orders:
    """An order makes what it asks for at once; its status goes PENDING to ACTIVE, and only an active
    order shows what it made (`_secret_id`, `_container_id`)."""

    collection = "orders"
    quota_status = BARBICAN_QUOTA_STATUS
    building: Building | None = ORDER_BUILDING

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        kind = request.get("type")
        if kind not in ORDER_TYPES:
            raise BadRequest(f"Invalid input for field 'type': '{kind}' is not one of {sorted(ORDER_TYPES)}")
        meta = dict(request.get("meta") or {})
        if kind in ("key", "asymmetric") and not (meta.get("algorithm") and meta.get("bit_length")):
            raise BadRequest(
                f"Provided object does not match schema 'Order': a {kind} order needs algorithm "
                "and bit_length"
            )
        made: Body = {}
        if kind == "key":
            made["_secret_id"] = self._secret(world, meta, "symmetric", meta.get("name"))["id"]
        else:
            made["_container_id"] = self._container(world, meta, kind)["id"]
        now = world.timestamp()
        return {"id": world.new_id(), "type": kind, "meta": meta, "status": ORDER_BUILDING.building,
                "sub_status": "Unknown", "created": now, "updated": now, **made}  # fmt: skip

    def _secret(self, world: CloudWorld, meta: Mapping[str, Any], kind: str, name: Any) -> Body:
        bits = int(meta.get("bit_length") or 256)
        material = world.random.getrandbits(bits).to_bytes((bits + 7) // 8, "big").hex()
        request = {"name": name, "secret_type": kind, "payload": material,
                   "payload_content_type": "application/octet-stream", "algorithm": meta.get("algorithm"),
                   "bit_length": meta.get("bit_length"), "mode": meta.get("mode")}  # fmt: skip
        return world.add("secrets", world.behaviours["secrets"].create(world, request))

    def _container(self, world: CloudWorld, meta: Mapping[str, Any], kind: str) -> Body:
        names = ("private_key", "public_key") if kind == "asymmetric" else ("certificate", "private_key")
        references = [
            {"name": name, "secret_ref": self._secret(world, meta, SECRET_TYPE_OF[name], name)["id"]}
            for name in names
        ]
        container_type = "rsa" if kind == "asymmetric" else "certificate"
        request = {"name": meta.get("name"), "type": container_type, "secret_refs": references}
        return world.add("secret_containers", world.behaviours["secret_containers"].create(world, request))

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        raise BadRequest("An order does not change after it is placed.")

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


BEHAVIOURS = (Secrets(), Containers(), Orders())
