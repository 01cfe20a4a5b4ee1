"""The OS::Neutron::* types on the simulated cloud.

RouterInterface and FloatingIPAssociation are relations, not collections: a router interface is
the router's port on a subnet (physical id `<router>:subnet_id=<subnet>` or `<router>:port_id=<port>`,
as Heat records it), an association is a floating IP's `port_id` (physical id: the floating IP's).
Both are idempotent by nature, so a re-create after a crash adopts what exists. Security group
rules carry no tags: a rule that exists already is adopted by its fields.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.marker_text import NEUTRON_DESCRIPTION
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import Conflict
from providers.simulated.heat_types.adapter import TaggedCollection, pages, require_found, shown
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body
from providers.simulated.network import ROUTER_INTERFACE_OWNER
from providers.simulated.security_groups import RULE_FIELDS


class Net(TaggedCollection):
    type_name = "OS::Neutron::Net"
    collection = "networks"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "shared": "shared",
        "port_security_enabled": "port_security_enabled",
        "dns_domain": "dns_domain",
        "availability_zone_hints": "availability_zone_hints",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = {**super().fields(cloud, properties), **(properties.get("value_specs") or {})}
        return {**request, **qos_policy_field(self.resolver, properties)}

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "qos_policy": body.get("qos_policy_id")}

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        names = ("status", "subnets", "admin_state_up", "mtu", "name", "port_security_enabled", "tenant_id")
        return {name: body.get(name) for name in names} | {
            "segments": [],
            "qos_policy_id": body.get("qos_policy_id"),
        }


def qos_policy_field(resolver: NameResolver, properties: Mapping[str, Any]) -> Body:
    """A network's or port's `qos_policy` (name or id) as Neutron's `qos_policy_id`, when given."""
    if "qos_policy" not in properties:
        return {}
    policy = properties["qos_policy"]
    return {"qos_policy_id": resolver.id_of("qos_policies", policy, "QoS policy") if policy else None}


class Subnet(TaggedCollection):
    type_name = "OS::Neutron::Subnet"
    collection = "subnets"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "cidr": "cidr",
        "ip_version": "ip_version",
        "dns_nameservers": "dns_nameservers",
        "gateway_ip": "gateway_ip",
        "enable_dhcp": "enable_dhcp",
        "allocation_pools": "allocation_pools",
        "host_routes": "host_routes",
        "ipv6_address_mode": "ipv6_address_mode",
        "ipv6_ra_mode": "ipv6_ra_mode",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = {**super().fields(cloud, properties), **(properties.get("value_specs") or {})}
        if properties.get("network"):
            request["network_id"] = self.resolver.id_of("networks", properties["network"], "Network")
        if properties.get("subnetpool"):
            request["subnetpool_id"] = self.resolver.id_of(
                "subnetpools", properties["subnetpool"], "Subnet pool"
            )
        if properties.get("prefixlen") is not None:
            request["prefixlen"] = properties["prefixlen"]
        return request

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {
            **super().properties_of(body),
            "network": body["network_id"],
            "subnetpool": body["subnetpool_id"],
        }

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        return {name: body.get(name) for name in (*self.passthrough, "network_id", "tenant_id")}


class Port(TaggedCollection):
    type_name = "OS::Neutron::Port"
    collection = "ports"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "mac_address": "mac_address",
        "device_id": "device_id",
        "device_owner": "device_owner",
        "binding:vnic_type": "binding:vnic_type",
        "allowed_address_pairs": "allowed_address_pairs",
        "port_security_enabled": "port_security_enabled",
        "dns_name": "dns_name",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = {**super().fields(cloud, properties), **(properties.get("value_specs") or {})}
        if properties.get("network"):
            request["network_id"] = self.resolver.id_of("networks", properties["network"], "Network")
        if properties.get("fixed_ips") is not None:
            request["fixed_ips"] = [self._fixed_ip(entry) for entry in properties["fixed_ips"]]
        if properties.get("security_groups") is not None:
            request["security_groups"] = [
                self.resolver.id_of("security_groups", group, "Security group")
                for group in properties["security_groups"]
            ]
        return {**request, **qos_policy_field(self.resolver, properties)}

    def _fixed_ip(self, entry: Mapping[str, Any]) -> Body:
        fixed: Body = {}
        subnet = entry.get("subnet") or entry.get("subnet_id")
        if subnet:
            fixed["subnet_id"] = self.resolver.id_of("subnets", subnet, "Subnet")
        if entry.get("ip_address"):
            fixed["ip_address"] = entry["ip_address"]
        return fixed

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {
            **super().properties_of(body),
            "network": body["network_id"],
            "security_groups": body["security_groups"],
            "qos_policy": body.get("qos_policy_id"),
        }

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        names = (
            "admin_state_up", "allowed_address_pairs", "device_id", "device_owner", "fixed_ips",
            "mac_address", "name", "network_id", "port_security_enabled", "security_groups", "status",
            "tenant_id",
        )  # fmt: skip
        subnets = [fixed["subnet_id"] for fixed in body["fixed_ips"]]
        return {name: body.get(name) for name in names} | {
            "subnets": subnets,
            "qos_policy_id": body.get("qos_policy_id"),
        }


class Router(TaggedCollection):
    type_name = "OS::Neutron::Router"
    collection = "routers"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "distributed": "distributed",
        "ha": "ha",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = {**super().fields(cloud, properties), **(properties.get("value_specs") or {})}
        gateway = properties.get("external_gateway_info")
        if gateway:
            network = self.resolver.id_of("networks", str(gateway.get("network")), "Network")
            request["external_gateway_info"] = {
                "network_id": network,
                "enable_snat": gateway.get("enable_snat", True),
            }
        elif "external_gateway_info" in properties:
            request["external_gateway_info"] = None
        return request

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        names = ("status", "external_gateway_info", "name", "admin_state_up", "tenant_id")
        return {name: body.get(name) for name in names}


class RouterInterface:
    type_name: ClassVar[str] = "OS::Neutron::RouterInterface"

    def __init__(self, resolver: Any) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        router = self.resolver.id_of("routers", str(properties.get("router")), "Router")
        if properties.get("subnet"):
            key, value = "subnet_id", self.resolver.id_of("subnets", properties["subnet"], "Subnet")
        else:
            key, value = "port_id", self.resolver.id_of("ports", str(properties.get("port")), "Port")
        physical_id = f"{router}:{key}={value}"
        existing = self.observe(cloud, [physical_id])
        if physical_id not in existing:
            cloud.act("routers", router, "add_router_interface", {key: value})
            existing = self.observe(cloud, [physical_id])
        return require_found(existing, physical_id)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return require_found(self.observe(cloud, [physical_id]), physical_id)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        router, _, selector = physical_id.partition(":")
        key, _, value = selector.partition("=")
        cloud.act("routers", router, "remove_router_interface", {key: value})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        found: dict[str, LiveResource] = {}
        wanted = set(physical_ids)
        for port in cloud.list("ports", where={"device_owner": ROUTER_INTERFACE_OWNER}):
            candidates = [f"{port['device_id']}:port_id={port['id']}"]
            candidates += [
                f"{port['device_id']}:subnet_id={fixed['subnet_id']}" for fixed in port["fixed_ips"]
            ]
            for physical_id in candidates:
                if physical_id in wanted:
                    found[physical_id] = self._live(physical_id, port)
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # interfaces carry no marker; create adopts an existing one

    def _live(self, physical_id: str, port: Body) -> LiveResource:
        router, _, selector = physical_id.partition(":")
        key, _, value = selector.partition("=")
        properties = {"router": router, key.removesuffix("_id"): value}
        return LiveResource(physical_id, self.type_name, LiveStatus.READY, properties, {"show": shown(port)})


class SecurityGroup(TaggedCollection):
    type_name = "OS::Neutron::SecurityGroup"
    collection = "security_groups"
    passthrough: ClassVar[Mapping[str, str]] = {"name": "name", "description": "description"}

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        live = super().create(cloud, properties, marker)
        self._set_rules(cloud, live.physical_id, properties.get("rules") or [])
        return self.live(cloud, cloud.get("security_groups", live.physical_id))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if "rules" in changed:
            self._set_rules(cloud, physical_id, properties.get("rules") or [])
        return super().update(cloud, physical_id, properties, changed - {"rules"})

    def _set_rules(self, cloud: SimulatedCloud, group_id: str, rules: list[Mapping[str, Any]]) -> None:
        """Make the group's rules exactly these; Heat drops the default egress rules when egress is given."""
        wanted = [rule_request(self.resolver, group_id, rule) for rule in rules]
        if not any(rule["direction"] == "egress" for rule in wanted):
            wanted += [
                rule_request(
                    self.resolver, group_id, {"direction": "egress", "ethertype": ethertype, "protocol": None}
                )
                for ethertype in ("IPv4", "IPv6")
            ]
        existing = own_rules(cloud.get("security_groups", group_id))
        keys = [rule_key(rule) for rule in wanted]
        for rule in existing:
            if rule_key(rule) not in keys:
                cloud.delete("security_group_rules", rule["id"])
        present = {rule_key(rule) for rule in existing}
        for rule, key in zip(wanted, keys, strict=True):
            if key not in present:
                cloud.create("security_group_rules", rule)
                present.add(key)

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "rules": own_rules(body)}


def own_rules(group: Body) -> list[Body]:
    """The group's own rules: one with a description belongs to an OS::Neutron::SecurityGroupRule
    resource (its own description or its marker), or to someone else; Heat's `rules` have none."""
    return [rule for rule in group["security_group_rules"] if not rule.get("description")]


def rule_request(resolver: Any, group_id: str, rule: Mapping[str, Any]) -> Body:
    """A Neutron rule body for a Heat rule (`remote_mode` remote_group_id with no group = itself)."""
    request: Body = {"security_group_id": group_id, "direction": rule.get("direction", "ingress")}
    request["ethertype"] = rule.get("ethertype", "IPv4")
    request["protocol"] = rule.get("protocol")
    for name in ("port_range_min", "port_range_max", "remote_ip_prefix", "description"):
        if rule.get(name) is not None:
            request[name] = rule[name]
    group = rule.get("remote_group_id") or rule.get("remote_group")
    if rule.get("remote_mode") == "remote_group_id" or group:
        request["remote_group_id"] = (
            resolver.id_of("security_groups", group, "Security group") if group else group_id
        )
    return request


def rule_key(rule: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(rule.get(name) for name in RULE_FIELDS)


class SecurityGroupRule(TaggedCollection):
    type_name = "OS::Neutron::SecurityGroupRule"
    collection = "security_group_rules"

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        group = self.resolver.id_of(
            "security_groups", str(properties.get("security_group")), "Security group"
        )
        rule = {**properties, "protocol": properties.get("protocol", "tcp")}
        # The marker goes in the description when the template gives none (rules carry no tags).
        rule["description"] = properties.get("description") or NEUTRON_DESCRIPTION.fitted(marker.tag)
        request = rule_request(self.resolver, group, rule)
        try:
            body = cloud.create("security_group_rules", request)
        except Conflict:
            rules = cloud.get("security_groups", group)["security_group_rules"]
            matching = [rule for rule in rules if rule_key(rule) == rule_key({**rule, **request})]
            if not matching:
                raise
            body = matching[0]
        return self.live(cloud, body)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self.live(cloud, cloud.get("security_group_rules", physical_id))

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        """The rule whose description is the marker (rules carry no tags); one given a description
        by its template is found by its create instead, which adopts an identical rule."""
        found = cloud.list(
            "security_group_rules", where={"description": NEUTRON_DESCRIPTION.fitted(marker.tag)}
        )
        return self.live(cloud, found[0]) if found else None

    def properties_of(self, body: Body) -> dict[str, Any]:
        observed = {name: body.get(name) for name in RULE_FIELDS}
        observed["security_group"] = body["security_group_id"]
        observed["remote_group"] = observed.pop("remote_group_id")
        return observed


class FloatingIP(TaggedCollection):
    type_name = "OS::Neutron::FloatingIP"
    collection = "floatingips"
    passthrough: ClassVar[Mapping[str, str]] = {
        "port_id": "port_id",
        "fixed_ip_address": "fixed_ip_address",
        "floating_ip_address": "floating_ip_address",
        "dns_name": "dns_name",
        "dns_domain": "dns_domain",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = {**super().fields(cloud, properties), **(properties.get("value_specs") or {})}
        if properties.get("floating_network"):
            request["floating_network_id"] = self.resolver.id_of(
                "networks", properties["floating_network"], "Network"
            )
        if "port_id" in properties and properties["port_id"] is None:
            request["port_id"] = None
        return request

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "floating_network": body["floating_network_id"]}

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        names = ("router_id", "tenant_id", "floating_network_id", "fixed_ip_address", "floating_ip_address",
                 "port_id")  # fmt: skip
        return {name: body.get(name) for name in names}


class FloatingIPAssociation:
    type_name: ClassVar[str] = "OS::Neutron::FloatingIPAssociation"

    def __init__(self, resolver: Any) -> None:
        self.resolver = resolver

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        floating = str(properties.get("floatingip_id"))
        return self._associate(cloud, floating, properties)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        if "floatingip_id" in changed:
            self.delete(cloud, physical_id)
        return self._associate(cloud, str(properties.get("floatingip_id")), properties)

    def _associate(self, cloud: SimulatedCloud, floating: str, properties: Mapping[str, Any]) -> LiveResource:
        request: Body = {"port_id": properties.get("port_id")}
        if properties.get("fixed_ip_address"):
            request["fixed_ip_address"] = properties["fixed_ip_address"]
        body = cloud.update("floatingips", floating, request)
        return self._live(body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        body = cloud.get("floatingips", physical_id)
        if not body["port_id"]:
            raise NotFound(f"floating IP {physical_id} is not associated")
        cloud.update("floatingips", physical_id, {"port_id": None})

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        found = {}
        for page in pages(physical_ids):
            for body in cloud.list("floatingips", ids=page):
                if body["port_id"]:
                    found[body["id"]] = self._live(body)
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        return None  # an association is a floating IP's port_id; create is idempotent

    def _live(self, body: Body) -> LiveResource:
        properties = {
            "floatingip_id": body["id"],
            "port_id": body["port_id"],
            "fixed_ip_address": body["fixed_ip_address"],
        }
        return LiveResource(body["id"], self.type_name, LiveStatus.READY, properties, {"show": shown(body)})


TYPES = (Net, Subnet, Port, Router, RouterInterface, SecurityGroup, SecurityGroupRule, FloatingIP,
         FloatingIPAssociation)  # fmt: skip
