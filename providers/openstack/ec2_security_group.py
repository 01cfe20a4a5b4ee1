"""AWS::EC2::SecurityGroup: the native Neutron group (`security_group`) under CloudFormation's
property names (`providers.ec2_security_group`); the same calls as OS::Neutron::SecurityGroup."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.ec2_security_group import aws_view, neutron_properties
from providers.interface import LiveResource, Marker
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.security_group import SecurityGroupHandler


@dataclass(frozen=True)
class Ec2SecurityGroupHandler:
    apis: CloudApis

    @property
    def _neutron(self) -> SecurityGroupHandler:
        return SecurityGroupHandler(self.apis)

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return aws_view(self._neutron.create(neutron_properties(properties), marker))

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        native = frozenset({"rules"} if changed & {"SecurityGroupIngress", "SecurityGroupEgress"} else ())
        return aws_view(self._neutron.update(physical_id, neutron_properties(properties), native))

    def delete(self, physical_id: str) -> None:
        self._neutron.delete(physical_id)

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return {key: aws_view(live) for key, live in self._neutron.observe(physical_ids).items()}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        found = self._neutron.find_by_marker(marker)
        return None if found is None else aws_view(found)
