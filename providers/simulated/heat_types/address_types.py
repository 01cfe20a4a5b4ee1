"""OS::Neutron::SubnetPool, AddressScope and ProviderNet on the simulated cloud.

A subnet pool is a tagged collection. An address scope carries no tags and no description: its
marker is its name when the template gives none, as Heat would name it after the resource. A
provider network is a network with a segment (`provider:*`) and `router:external`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any, ClassVar

from providers.interface import LiveResource, Marker
from providers.marker_text import NEUTRON_DESCRIPTION
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import TaggedCollection
from providers.simulated.heat_types.network_types import Net
from providers.simulated.inventory import Body


class SubnetPool(TaggedCollection):
    type_name = "OS::Neutron::SubnetPool"
    collection = "subnetpools"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "prefixes": "prefixes",
        "default_quota": "default_quota",
        "default_prefixlen": "default_prefixlen",
        "min_prefixlen": "min_prefixlen",
        "max_prefixlen": "max_prefixlen",
        "is_default": "is_default",
        "shared": "shared",
    }

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        request = super().fields(cloud, properties)
        if "address_scope" in properties:
            scope = properties["address_scope"]
            request["address_scope_id"] = (
                self.resolver.id_of("address_scopes", scope, "Address scope") if scope else None
            )
        return request

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {**super().properties_of(body), "address_scope": body["address_scope_id"]}


class AddressScope(TaggedCollection):
    type_name = "OS::Neutron::AddressScope"
    collection = "address_scopes"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "shared": "shared",
        "ip_version": "ip_version",
    }

    def create_request(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> Body:
        request = self.fields(cloud, properties)
        request["name"] = properties.get("name") or NEUTRON_DESCRIPTION.fitted(marker.tag)
        return request

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = cloud.list(self.collection, name=NEUTRON_DESCRIPTION.fitted(marker.tag))
        return replace(self.live(cloud, found[0]), marker=marker) if found else None

    def live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        live = super().live(cloud, body)
        marker = Marker.parse(str(body.get("name") or ""))
        if marker is None:
            return live
        return replace(live, marker=marker, properties={**live.properties, "name": None})


class ProviderNet(Net):
    type_name = "OS::Neutron::ProviderNet"
    passthrough: ClassVar[Mapping[str, str]] = {
        "name": "name",
        "admin_state_up": "admin_state_up",
        "shared": "shared",
        "port_security_enabled": "port_security_enabled",
        "dns_domain": "dns_domain",
        "network_type": "provider:network_type",
        "physical_network": "provider:physical_network",
        "segmentation_id": "provider:segmentation_id",
        "router_external": "router:external",
        "availability_zone_hints": "availability_zone_hints",
    }

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        return {"status": body["status"], "subnets": body["subnets"], "segments": []}


TYPES = (SubnetPool, AddressScope, ProviderNet)
