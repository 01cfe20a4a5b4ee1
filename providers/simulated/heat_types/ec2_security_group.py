"""AWS::EC2::SecurityGroup on the simulated cloud: the native Neutron group under CloudFormation's
property names (`providers.ec2_security_group`)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, ClassVar

from providers.ec2_security_group import TYPE_NAME, aws_view, neutron_properties
from providers.interface import LiveResource, Marker
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.network_types import SecurityGroup
from providers.simulated.heat_types.resolving import NameResolver


class Ec2SecurityGroup:
    type_name: ClassVar[str] = TYPE_NAME

    def __init__(self, resolver: NameResolver) -> None:
        self._neutron = SecurityGroup(resolver)

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return aws_view(self._neutron.create(cloud, neutron_properties(properties), marker))

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        native = frozenset({"rules"} if changed & {"SecurityGroupIngress", "SecurityGroupEgress"} else ())
        return aws_view(self._neutron.update(cloud, physical_id, neutron_properties(properties), native))

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        self._neutron.delete(cloud, physical_id)

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        return {key: aws_view(live) for key, live in self._neutron.observe(cloud, physical_ids).items()}

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        found = self._neutron.find_by_marker(cloud, marker)
        return None if found is None else aws_view(found)


TYPES = (Ec2SecurityGroup,)
