"""Neutron's core collections: networks, subnets and ports, the addresses they give servers, and
the shared shape of every Neutron collection (status ACTIVE at once, 409 on quota, read-only
attributes refused). Routers, security groups and floating IPs have modules of their own. Bodies
carry the fields Neutron's API shows; a field starting with `_` is internal bookkeeping the HTTP
face never shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated import addressing
from providers.simulated.errors import BadRequest, Conflict
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

NEUTRON_QUOTA_STATUS = 409
ROUTER_INTERFACE_OWNER = "network:router_interface"
PROTECTED = frozenset({"id", "tenant_id", "project_id", "status", "created_at", "revision_number"})


def standard_fields(world: CloudWorld, request: Mapping[str, Any]) -> Body:
    project = world.settings.project_id
    now = world.timestamp()
    return {
        "id": world.new_id(),
        "name": request.get("name", ""),
        "description": request.get("description", ""),
        "tenant_id": project,
        "project_id": project,
        "tags": list(request.get("tags") or ()),
        "created_at": now,
        "updated_at": now,
        "revision_number": 1,
    }


def merged(world: CloudWorld, body: Body, request: Mapping[str, Any], read_only: frozenset[str]) -> Body:
    """`body` with the request's changes, refusing read-only attributes as Neutron does."""
    refused = sorted(key for key in request if key in PROTECTED or key in read_only)
    if refused:
        raise BadRequest(f"Cannot update read-only attribute {', '.join(refused)}")
    return {
        **body,
        **request,
        "updated_at": world.timestamp(),
        "revision_number": body.get("revision_number", 0) + 1,
    }


def require_qos_policy(world: CloudWorld, request: Mapping[str, Any]) -> None:
    """A network or port names an existing QoS policy, or none."""
    policy = request.get("qos_policy_id")
    if policy:
        world.require("qos_policies", str(policy), "QoS policy")


PROVIDER_FIELDS = ("provider:network_type", "provider:physical_network", "provider:segmentation_id")
SEGMENTED_TYPES = frozenset({"vlan", "vxlan", "gre", "geneve"})


def provider_fields(request: Mapping[str, Any]) -> Body:
    """A provider network's segment, checked as Neutron's type drivers check it (none: a tenant network)."""
    kind = request.get("provider:network_type")
    if kind is None:
        return {}
    physical = request.get("provider:physical_network")
    segment = request.get("provider:segmentation_id")
    if kind not in ("local", "flat", *SEGMENTED_TYPES):
        raise BadRequest(f"Invalid input for operation: network_type value '{kind}' not supported.")
    if kind in ("flat", "vlan") and not physical:
        raise BadRequest(
            f"Invalid input for operation: physical_network required for {kind} provider network."
        )
    if kind in ("local", "flat") and segment is not None:
        raise BadRequest(
            f"Invalid input for operation: segmentation_id prohibited for {kind} provider network."
        )
    if segment is not None:
        if not str(segment).isdigit() or (kind == "vlan" and not 1 <= int(segment) <= 4094):
            raise BadRequest(f"Invalid input for operation: segmentation_id out of range for {kind}.")
        segment = int(segment)
    return {
        "provider:network_type": kind,
        "provider:physical_network": physical if kind in ("flat", "vlan") else None,
        "provider:segmentation_id": segment,
    }


class Neutron:
    """Shared shape of a Neutron collection: status ACTIVE at once, 409 on quota."""

    collection = ""
    quota_status = NEUTRON_QUOTA_STATUS
    building: Building | None = None
    read_only: frozenset[str] = frozenset()

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return merged(world, body, request, self.read_only)

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None


class Networks(Neutron):
    collection = "networks"

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        require_qos_policy(world, request)
        return {
            **standard_fields(world, request),
            **provider_fields(request),
            "status": "ACTIVE",
            "admin_state_up": request.get("admin_state_up", True),
            "shared": request.get("shared", False),
            "router:external": request.get("router:external", False),
            "port_security_enabled": request.get("port_security_enabled", True),
            "mtu": request.get("mtu", 1450),
            "dns_domain": request.get("dns_domain", ""),
            "qos_policy_id": request.get("qos_policy_id"),
            "availability_zone_hints": list(request.get("availability_zone_hints") or ()),
            "availability_zones": ["nova"],
            "subnets": [],
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        require_qos_policy(world, request)
        return merged(world, body, request, self.read_only)

    def delete(self, world: CloudWorld, body: Body) -> None:
        in_use = [port["id"] for port in world.inventory("ports") if port["network_id"] == body["id"]]
        if in_use:
            raise Conflict(
                f"Unable to complete operation on network {body['id']}. "
                f"There are one or more ports still in use on the network."
            )
        for subnet_id in body["subnets"]:
            world.inventory("subnets").pop(subnet_id)


class Subnets(Neutron):
    collection = "subnets"
    read_only = frozenset({"network_id", "cidr", "ip_version", "subnetpool_id"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        network = world.require("networks", str(request.get("network_id")), "Network")
        cidr = request.get("cidr")
        pool_id = request.get("subnetpool_id")
        if not cidr and pool_id:
            from providers.simulated.subnet_pools import allocated_cidr  # pools build on subnets

            cidr = allocated_cidr(world, str(pool_id), request.get("prefixlen"))
        if not cidr:
            raise BadRequest("Bad subnets request: a cidr or a subnetpool_id must be given.")
        try:
            gateway = request.get("gateway_ip", addressing.gateway_of(cidr))
            pools = request.get("allocation_pools") or addressing.allocation_pool_of(cidr)
        except ValueError as error:
            raise BadRequest(f"Invalid input for cidr. Reason: '{cidr}' is not a valid IP subnet.") from error
        body = {
            **standard_fields(world, request),
            "network_id": network["id"],
            "cidr": cidr,
            "ip_version": request.get("ip_version", 4),
            "gateway_ip": gateway,
            "enable_dhcp": request.get("enable_dhcp", True),
            "dns_nameservers": list(request.get("dns_nameservers") or ()),
            "allocation_pools": pools,
            "host_routes": list(request.get("host_routes") or ()),
            "ipv6_address_mode": request.get("ipv6_address_mode"),
            "ipv6_ra_mode": request.get("ipv6_ra_mode"),
            "subnetpool_id": pool_id or None,
            "segment_id": request.get("segment_id"),
        }
        world.add("networks", {**network, "subnets": [*network["subnets"], body["id"]]})
        return body

    def delete(self, world: CloudWorld, body: Body) -> None:
        for port in world.inventory("ports"):
            if any(ip.get("subnet_id") == body["id"] for ip in port["fixed_ips"]):
                raise Conflict(
                    f"Unable to complete operation on subnet {body['id']}: "
                    "One or more ports have an IP allocation from this subnet."
                )
        network = world.inventory("networks").get(body["network_id"])
        if network is not None:
            subnets = [subnet for subnet in network["subnets"] if subnet != body["id"]]
            world.add("networks", {**network, "subnets": subnets})


def allocate_fixed_ips(world: CloudWorld, network: Body, requested: Any) -> list[dict[str, str]]:
    """Fixed IPs for a new port: those asked for (filled in), or the next one of the first subnet."""
    if requested is None:
        if not network["subnets"]:
            return []
        requested = [{"subnet_id": network["subnets"][0]}]
    allocated = []
    for wanted in requested:
        subnet_id = wanted.get("subnet_id") or (network["subnets"] or [None])[0]
        if subnet_id is None or subnet_id not in network["subnets"]:
            raise BadRequest(f"Invalid input for fixed_ips: subnet {subnet_id} is not on this network.")
        address = wanted.get("ip_address")
        if address is None:
            subnet = world.require("subnets", subnet_id, "Subnet")
            address, subnet = addressing.next_address(subnet)
            world.add("subnets", subnet)
        allocated.append({"subnet_id": subnet_id, "ip_address": address})
    return allocated


class Ports(Neutron):
    collection = "ports"
    read_only = frozenset({"network_id"})

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        network = world.require("networks", str(request.get("network_id")), "Network")
        require_qos_policy(world, request)
        for group in request.get("security_groups") or ():
            world.require("security_groups", group, "Security group")
        device_id = request.get("device_id", "")
        return {
            **standard_fields(world, request),
            "network_id": network["id"],
            "admin_state_up": request.get("admin_state_up", True),
            "mac_address": request.get("mac_address") or addressing.mac_address(world.random),
            "fixed_ips": allocate_fixed_ips(world, network, request.get("fixed_ips")),
            "device_id": device_id,
            "device_owner": request.get("device_owner", ""),
            "status": "ACTIVE" if device_id else "DOWN",
            "security_groups": list(request.get("security_groups") or ()),
            "allowed_address_pairs": list(request.get("allowed_address_pairs") or ()),
            "port_security_enabled": request.get("port_security_enabled", True),
            "binding:vnic_type": request.get("binding:vnic_type", "normal"),
            "dns_name": request.get("dns_name", ""),
            "qos_policy_id": request.get("qos_policy_id"),
        }

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        require_qos_policy(world, request)
        changes = dict(request)
        if "fixed_ips" in changes:
            network = world.require("networks", body["network_id"], "Network")
            changes["fixed_ips"] = allocate_fixed_ips(world, network, changes["fixed_ips"])
        if "device_id" in changes:
            changes["status"] = "ACTIVE" if changes["device_id"] else "DOWN"
            body = {**body, "status": changes.pop("status")}
        updated = merged(world, body, changes, self.read_only)
        world.add("ports", updated)
        refresh_server_addresses(world, updated.get("device_id", ""))
        return updated

    def delete(self, world: CloudWorld, body: Body) -> None:
        from providers.simulated.trunks import refuse_trunk_port_deletion  # trunks build on ports

        refuse_trunk_port_deletion(world, body)
        if body["device_owner"] == ROUTER_INTERFACE_OWNER:
            raise Conflict(
                f"Port {body['id']} cannot be deleted directly via the port API: "
                f"has device owner {ROUTER_INTERFACE_OWNER}."
            )
        for floating in world.inventory("floatingips").select():
            if floating["port_id"] == body["id"]:
                world.add("floatingips", disassociated(floating))
        world.inventory("ports").pop(body["id"])
        refresh_server_addresses(world, body["device_id"])


def refresh_server_addresses(world: CloudWorld, server_id: str) -> None:
    """Recompute a server's `addresses` from the ports bound to it and their floating IPs."""
    server = world.inventory("servers").get(server_id) if server_id else None
    if server is None:
        return
    ports = [port for port_id in server["_ports"] if (port := world.inventory("ports").get(port_id))]
    world.add("servers", {**server, "addresses": addresses_of(world, ports)})


def addresses_of(world: CloudWorld, ports: list[Body]) -> dict[str, list[dict[str, Any]]]:
    addresses: dict[str, list[dict[str, Any]]] = {}
    floating_by_port = {
        fip["port_id"]: fip["floating_ip_address"] for fip in world.inventory("floatingips") if fip["port_id"]
    }
    for port in ports:
        network = world.inventory("networks").get(port["network_id"])
        label = (network or {}).get("name") or port["network_id"]
        entries = addresses.setdefault(label, [])
        for fixed in port["fixed_ips"]:
            entries.append(address_entry(fixed["ip_address"], "fixed", port["mac_address"]))
        if port["id"] in floating_by_port:
            entries.append(address_entry(floating_by_port[port["id"]], "floating", port["mac_address"]))
    return addresses


def address_entry(address: str, kind: str, mac: str) -> dict[str, Any]:
    return {
        "addr": address,
        "version": 6 if ":" in address else 4,
        "OS-EXT-IPS:type": kind,
        "OS-EXT-IPS-MAC:mac_addr": mac,
    }


def disassociated(floating: Body) -> Body:
    return {**floating, "port_id": None, "fixed_ip_address": None, "router_id": None, "status": "DOWN"}


def external_address(world: CloudWorld, network: Body) -> tuple[str, str]:
    """The next address of an external network (its first subnet), and that subnet's id."""
    if not network.get("router:external"):
        raise BadRequest(f"Bad floatingip request: Network {network['id']} is not a valid external network.")
    if not network["subnets"]:
        raise Conflict(f"No more IP addresses available on network {network['id']}.")
    subnet = world.require("subnets", network["subnets"][0], "Subnet")
    address, subnet = addressing.next_address(subnet)
    world.add("subnets", subnet)
    return address, subnet["id"]


BEHAVIOURS = (Networks(), Subnets(), Ports())
