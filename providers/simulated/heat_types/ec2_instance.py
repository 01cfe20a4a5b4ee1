"""AWS::EC2::Instance on the simulated cloud: the Nova server under CloudFormation's property
names (`providers.ec2_instance`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.ec2_instance import TYPE_NAME, aws_view, native_changes, nova_properties
from providers.interface import LiveResource, Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.compute_types import Server
from providers.simulated.heat_types.resolving import NameResolver


class Ec2Instance:
    type_name: ClassVar[str] = TYPE_NAME

    def __init__(self, resolver: NameResolver) -> None:
        self._resolver = resolver
        self._nova = Server(resolver)

    def _native(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> dict[str, Any]:
        def network_of_subnet(subnet: str) -> str:
            subnet_id = self._resolver.id_of("subnets", subnet, "Subnet")
            return str(cloud.get("subnets", subnet_id)["network_id"])

        return nova_properties(properties, network_of_subnet)

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return aws_view(self._nova.create(cloud, self._native(cloud, properties), marker))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        native = self._native(cloud, properties)
        return aws_view(self._nova.update(cloud, physical_id, native, native_changes(changed)))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        self._nova.delete(cloud, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        return {key: aws_view(live) for key, live in self._nova.observe(cloud, physical_ids).items()}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = self._nova.find_by_marker(cloud, marker)
        return None if found is None else aws_view(found)


TYPES = (Ec2Instance,)
