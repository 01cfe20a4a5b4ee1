"""Neutron's address scopes and subnet pools, and subnets allocated from a pool.

A pool's prefixes share one IP version, which is the pool's and must be its address scope's; the
prefix lengths keep min <= default <= max. A subnet asked of a pool with no `cidr` gets the first
free block of its `prefixlen` (the pool's default when absent) among the pool's prefixes. A scope
a pool uses, and a pool a subnet was allocated from, cannot be deleted, as Neutron refuses.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.network import Neutron, merged, standard_fields
from providers.simulated.world import CloudWorld

MAX_PREFIXLEN = {4: 32, 6: 128}


class AddressScopes(Neutron):
    collection = "address_scopes"
    read_only = frozenset({"ip_version"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        version = request.get("ip_version")
        if version not in (4, 6):
            raise BadRequest(f"Invalid input for ip_version. Reason: {version!r} is not in [4, 6].")
        fields = standard_fields(world, request)
        fields.pop("description")
        fields.pop("tags")
        return {**fields, "ip_version": version, "shared": bool(request.get("shared", False))}

    def delete(self, world: CloudWorld, body: Body) -> None:
        if any(pool.get("address_scope_id") == body["id"] for pool in world.inventory("subnetpools")):
            raise Conflict(
                f"Unable to complete operation on address scope {body['id']}. "
                "There are one or more subnet pools in use on the address scope."
            )


class SubnetPools(Neutron):
    collection = "subnetpools"
    read_only = frozenset({"ip_version", "shared"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        prefixes = _networks(request.get("prefixes"))
        version = prefixes[0].version
        top = MAX_PREFIXLEN[version]
        minimum = int(request.get("min_prefixlen") or (8 if version == 4 else 64))
        body = {
            **standard_fields(world, request),
            "prefixes": [str(prefix) for prefix in prefixes],
            "ip_version": version,
            "min_prefixlen": minimum,
            "max_prefixlen": int(request.get("max_prefixlen") or top),
            "default_prefixlen": int(request.get("default_prefixlen") or minimum),
            "default_quota": request.get("default_quota"),
            "address_scope_id": request.get("address_scope_id"),
            "is_default": bool(request.get("is_default", False)),
            "shared": bool(request.get("shared", False)),
        }
        return _checked(world, body)

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        updated = merged(world, body, request, self.read_only)
        if "prefixes" in request:
            prefixes = _networks(request["prefixes"])
            held = [ipaddress.ip_network(prefix) for prefix in body["prefixes"]]
            if any(not any(_within(old, new) for new in prefixes) for old in held):
                raise BadRequest("Illegal update to prefixes: prefixes of a subnet pool can only grow.")
            updated["prefixes"] = [str(prefix) for prefix in prefixes]
        return _checked(world, updated)

    def delete(self, world: CloudWorld, body: Body) -> None:
        if any(subnet.get("subnetpool_id") == body["id"] for subnet in world.inventory("subnets")):
            raise Conflict(
                f"Unable to complete operation on subnet pool {body['id']}. "
                "There are one or more subnets allocated from it."
            )


def _within(
    old: ipaddress.IPv4Network | ipaddress.IPv6Network, new: ipaddress.IPv4Network | ipaddress.IPv6Network
) -> bool:
    return old.version == new.version and old.subnet_of(new)  # type: ignore[arg-type]


def _networks(prefixes: Any) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    if not isinstance(prefixes, list) or not prefixes:
        raise BadRequest("Invalid input for prefixes. Reason: a non-empty list of CIDRs is expected.")
    try:
        networks = [ipaddress.ip_network(str(prefix)) for prefix in prefixes]
    except ValueError as error:
        raise BadRequest(f"Invalid input for prefixes. Reason: {error}.") from error
    if len({network.version for network in networks}) > 1:
        raise BadRequest("Illegal subnetpool prefix: cannot mix IPv4 and IPv6 prefixes in a subnet pool.")
    return networks


def _checked(world: CloudWorld, pool: Body) -> Body:
    top = MAX_PREFIXLEN[pool["ip_version"]]
    if not 0 <= pool["min_prefixlen"] <= pool["default_prefixlen"] <= pool["max_prefixlen"] <= top:
        raise BadRequest(
            "Illegal prefix bounds: min_prefixlen <= default_prefixlen <= max_prefixlen is required "
            f"(got {pool['min_prefixlen']}, {pool['default_prefixlen']}, {pool['max_prefixlen']})."
        )
    scope_id = pool.get("address_scope_id")
    if scope_id:
        scope = world.require("address_scopes", str(scope_id), "Address scope")
        if scope["ip_version"] != pool["ip_version"]:
            raise BadRequest(
                f"Illegal subnetpool association: subnetpool {pool['id']} cannot be associated with "
                f"address scope {scope_id}."
            )
    return pool


def allocated_cidr(world: CloudWorld, pool_id: str, prefixlen: Any) -> str:
    """The first block of `prefixlen` (the pool's default when None) no subnet of the pool holds."""
    pool = world.require("subnetpools", pool_id, "Subnet pool")
    length = pool["default_prefixlen"] if prefixlen is None else int(prefixlen)
    if not pool["min_prefixlen"] <= length <= pool["max_prefixlen"]:
        raise BadRequest(
            f"Unable to allocate subnet with prefix length {length}, the pool allows "
            f"{pool['min_prefixlen']} to {pool['max_prefixlen']}."
        )
    taken = [
        ipaddress.ip_network(subnet["cidr"])
        for subnet in world.inventory("subnets")
        if subnet.get("subnetpool_id") == pool_id
    ]
    for prefix in pool["prefixes"]:
        for block in ipaddress.ip_network(prefix).subnets(new_prefix=length):
            if not any(block.overlaps(held) for held in taken):
                return str(block)
    raise Conflict(f"Unable to allocate subnet with prefix length {length}, no free block in the pool.")


BEHAVIOURS = (AddressScopes(), SubnetPools())
