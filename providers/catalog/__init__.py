"""The shared catalog of cloud resource types, read from the resource type schemas (`schemas/`).

Every backend that serves these types (the OpenStack SDK provider, the simulated cloud) answers
`resource_types()` from here, so the engine plans updates and replacements from one source:
which properties exist, their types, required ones and defaults, whether a change is made in
place (`UpdateRule.UPDATE`), replaces the resource (`REPLACE`) or is forbidden (`IMMUTABLE`), and
which attributes `get_attr` may read. Native OS::Heat::* types live with their provider.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from providers.catalog import (
    aodh,
    barbican,
    blazar,
    cinder,
    designate,
    glance,
    keystone,
    magnum,
    mistral,
    monasca,
    neutron,
    nova,
    octavia,
    swift,
    zaqar,
    zun,
)
from providers.interface import ResourceType

CATALOG: Mapping[str, ResourceType] = MappingProxyType(
    {
        entry.name: entry
        for entry in (
            *nova.TYPES,
            *neutron.TYPES,
            *cinder.TYPES,
            *octavia.TYPES,
            *aodh.TYPES,
            *keystone.TYPES,
            *swift.TYPES,
            *glance.TYPES,
            *designate.TYPES,
            *barbican.TYPES,
            *zaqar.TYPES,
            *mistral.TYPES,
            *zun.TYPES,
            *blazar.TYPES,
            *magnum.TYPES,
            *monasca.TYPES,
        )
    }
)

__all__ = ["CATALOG"]
