"""Cinder's QoS specs: named sets of key/value limits for a consumer (back-end, front-end or both),
associated with volume types.

Names are unique in the cloud; a volume type holds at most one QoS spec; a spec associated with a
type cannot be deleted unless forced; each is refused with Cinder's message. The association is
the volume type's `qos_specs_id`, as Cinder keeps it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict, ItemNotFound
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

CONSUMERS = ("back-end", "front-end", "both")
QOS_SPECS_ACTIONS = ("set_keys", "delete_keys", "associate", "disassociate", "disassociate_all")


class QosSpecs:
    collection = "qos_specs"
    quota_status = 413
    building: Building | None = None

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        name = request.get("name")
        if not isinstance(name, str) or not name.strip():
            raise BadRequest("Invalid input received: Please specify a name for QoS specs.")
        if world.inventory(self.collection).select(name=name):
            raise Conflict(f"QoS Specs {name} already exists.")
        consumer = request.get("consumer", "back-end")
        if consumer not in CONSUMERS:
            raise BadRequest(f"Invalid input received: Valid consumer of QoS specs are: {list(CONSUMERS)}")
        specs = {str(key): str(value) for key, value in request.items() if key not in ("name", "consumer")}
        return {"id": world.new_id(), "name": name, "consumer": consumer, "specs": specs}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return qos_specs_action(world, body, "set_keys", {"specs": request})

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None  # the HTTP face refuses an associated spec unless forced, then disassociates it


def associated_types(world: CloudWorld, specs_id: str) -> list[Body]:
    return [vtype for vtype in world.inventory("volume_types") if vtype.get("qos_specs_id") == specs_id]


def qos_specs_action(world: CloudWorld, body: Body, action: str, request: Mapping[str, Any]) -> Body:
    """Keys set or deleted; volume types associated or disassociated (their `qos_specs_id`)."""
    if action == "set_keys":
        changes = {str(key): str(value) for key, value in (request.get("specs") or {}).items()}
        consumer = changes.pop("consumer", body["consumer"])
        return {**body, "consumer": consumer, "specs": {**body["specs"], **changes}}
    if action == "delete_keys":
        keys = [str(key) for key in request.get("keys") or ()]
        missing = [key for key in keys if key not in body["specs"]]
        if missing:
            raise BadRequest(f"Invalid input received: QoS specs {body['id']} has no key {missing[0]}.")
        return {**body, "specs": {k: v for k, v in body["specs"].items() if k not in keys}}
    if action == "disassociate_all":
        for associated in associated_types(world, body["id"]):
            world.add("volume_types", {**associated, "qos_specs_id": None})
        return body
    vtype = world.inventory("volume_types").get(str(request.get("vol_type_id")))
    if vtype is None:
        raise ItemNotFound(f"Volume type {request.get('vol_type_id')} could not be found.")
    if action == "associate":
        if vtype.get("qos_specs_id") not in (None, body["id"]):
            raise BadRequest(
                f"Invalid volume type: Type {vtype['id']} is already associated with another qos specs: "
                f"{vtype['qos_specs_id']}"
            )
        world.add("volume_types", {**vtype, "qos_specs_id": body["id"]})
    elif vtype.get("qos_specs_id") == body["id"]:
        world.add("volume_types", {**vtype, "qos_specs_id": None})
    return body


BEHAVIOURS = (QosSpecs(),)
