"""AWS::EC2::Instance: the Nova server (`server`) under CloudFormation's property names
(`providers.ec2_instance`); the same calls as OS::Nova::Server, and one subnet read for SubnetId."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.ec2_instance import aws_view, native_changes, nova_properties
from providers.interface import LiveResource, Marker
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.server import ServerHandler


@dataclass(frozen=True)
class Ec2InstanceHandler:
    apis: CloudApis

    @property
    def _nova(self) -> ServerHandler:
        return ServerHandler(self.apis)

    def _network_of_subnet(self, subnet: str) -> str:
        subnet_id = self.apis.names.id_of("subnet", subnet)
        return str(self.apis.network.get(f"/subnets/{subnet_id}")["subnet"]["network_id"])

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return aws_view(self._nova.create(nova_properties(properties, self._network_of_subnet), marker))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        native = nova_properties(properties, self._network_of_subnet)
        return aws_view(self._nova.update(physical_id, native, native_changes(changed)))

    def delete(self, physical_id: str) -> None:
        self._nova.delete(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {key: aws_view(live) for key, live in self._nova.observe(physical_ids).items()}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        found = self._nova.find_by_marker(marker)
        return None if found is None else aws_view(found)
