"""`SimulatedProvider`: the provider interface served directly on the simulated cloud, no HTTP.

It is what the in-process demo, the engine's tests and its benchmarks use. Each template type maps
to a collection of the cloud through an adapter (`heat_types/`); every call goes through the cloud's
pipeline, so latency, the concurrency limit, faults and quotas apply exactly as over HTTP, and the
cloud's errors leave as Retryable, Permanent or NotFound.

A provider works in one region of its cloud (`in_region` gives the one for another); Keystone's
types go to the home region whatever the provider's region, as identity is one for the whole cloud.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, ClassVar, Protocol

from providers.catalog import CATALOG
from providers.interface import LiveResource, Marker, Permanent, ResourceType
from providers.simulated.boundary import provider_errors
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types import (
    address_types,
    aggregate_type,
    alarm_types,
    compute_types,
    container_type,
    dns_types,
    ec2_instance,
    ec2_security_group,
    flavor_type,
    identity_types,
    image_types,
    key_manager_types,
    load_balancing_types,
    magnum_types,
    messaging_types,
    monasca_types,
    network_types,
    nova_floating_ips,
    object_store_types,
    qos_specs_types,
    qos_types,
    quota_types,
    reservation_types,
    storage_types,
    subscription_types,
    trunk_type,
    volume_types,
    workflow_types,
)
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.http.keystone import CATALOG_ENTRIES
from providers.simulated.settings import REGION

SERVICE_TYPES = frozenset(service_type for service_type, _name, _path in CATALOG_ENTRIES)
KEYSTONE_TYPES = frozenset(adapter.type_name for adapter in identity_types.TYPES)


class TypeAdapter(Protocol):
    type_name: ClassVar[str]

    def create(
        self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker
    ) -> LiveResource: ...

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource: ...

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None: ...

    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> Mapping[str, LiveResource]: ...

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None: ...


ADAPTERS = (
    *compute_types.TYPES,
    *network_types.TYPES,
    *storage_types.TYPES,
    *volume_types.TYPES,
    *trunk_type.TYPES,
    *aggregate_type.TYPES,
    *nova_floating_ips.TYPES,
    *ec2_security_group.TYPES,
    *ec2_instance.TYPES,
    *load_balancing_types.TYPES,
    *alarm_types.TYPES,
    *identity_types.TYPES,
    *object_store_types.TYPES,
    *image_types.TYPES,
    *dns_types.TYPES,
    *key_manager_types.TYPES,
    *messaging_types.TYPES,
    *subscription_types.TYPES,
    *workflow_types.TYPES,
    *container_type.TYPES,
    *reservation_types.TYPES,
    *qos_types.TYPES,
    *address_types.TYPES,
    *flavor_type.TYPES,
    *qos_specs_types.TYPES,
    *quota_types.TYPES,
    *magnum_types.TYPES,
    *monasca_types.TYPES,
)


class SimulatedProvider:
    """Every catalog type, on one simulated cloud; safe to call from many threads."""

    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud
        self._identity_cloud = cloud.regions.get(REGION, cloud)
        resolver = NameResolver(cloud)
        self._adapters: dict[str, TypeAdapter] = {}
        for adapter_type in ADAPTERS:
            adapter: TypeAdapter = adapter_type(resolver)
            self._adapters[adapter.type_name] = adapter
        self._in_regions: dict[str, SimulatedProvider] = {cloud.region: self}

    @classmethod
    def open(cls, path: Path, **options: Any) -> SimulatedProvider:
        """A provider on the cloud saved at `path` (created there when new); call `save()` after."""
        return cls(SimulatedCloud.open(path, **options))

    def save(self) -> None:
        self.cloud.save()

    def resource_types(self) -> Mapping[str, ResourceType]:
        return {name: CATALOG[name] for name in self._adapters}

    def service_types(self) -> frozenset[str]:
        """The services the simulated Keystone lists in its catalog."""
        return SERVICE_TYPES

    def region_name(self) -> str:
        """The region this provider works in (the home one is what the clouds.yaml entry names)."""
        return self.cloud.region

    def region_names(self) -> frozenset[str]:
        """Every region the cloud serves (what its Keystone catalog lists endpoints in)."""
        return frozenset(self.cloud.regions)

    def in_region(self, region: str) -> SimulatedProvider:
        """The provider for another region of the same cloud (made once, then shared)."""
        found = self._in_regions.get(region)
        if found is None:
            try:
                regional = self.cloud.in_region(region)
            except KeyError as error:
                raise Permanent(f"the simulated cloud has {error.args[0]}") from None
            found = self._in_regions.setdefault(region, SimulatedProvider(regional))
        return found

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        with provider_errors():
            return self._adapter(type_name).create(self._cloud_for(type_name), properties, marker)

    def update(
        self,
        type_name: str,
        physical_id: str,
        properties: Mapping[str, Any],
        changed: frozenset[str],
    ) -> LiveResource:
        with provider_errors():
            return self._adapter(type_name).update(
                self._cloud_for(type_name), physical_id, properties, changed
            )

    def delete(self, type_name: str, physical_id: str) -> None:
        with provider_errors():
            self._adapter(type_name).delete(self._cloud_for(type_name), physical_id)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        with provider_errors():
            return self._adapter(type_name).observe(self._cloud_for(type_name), physical_ids)

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        with provider_errors():
            return self._adapter(type_name).find_by_marker(self._cloud_for(type_name), marker)

    def snapshot(self, type_name: str, physical_id: str, marker: Marker) -> str:
        with provider_errors():
            adapter = self._adapter(type_name)
            snapshot = getattr(adapter, "snapshot", None)
            if snapshot is None:
                raise Permanent(f'"Snapshot" deletion policy not supported for {type_name}')
            result: str = snapshot(self.cloud, physical_id, marker)
            return result

    def can_suspend(self, type_name: str) -> bool:
        adapter = self._adapters.get(type_name)
        return adapter is not None and hasattr(adapter, "suspend")

    def suspend(self, type_name: str, physical_id: str) -> LiveResource:
        return self._suspension(type_name, physical_id, "suspend")

    def resume(self, type_name: str, physical_id: str) -> LiveResource:
        return self._suspension(type_name, physical_id, "resume")

    def _suspension(self, type_name: str, physical_id: str, action: str) -> LiveResource:
        with provider_errors():
            move = getattr(self._adapter(type_name), action, None)
            if move is None:
                raise Permanent(f"{type_name} cannot be suspended")
            live: LiveResource = move(self.cloud, physical_id)
            return live

    def _cloud_for(self, type_name: str) -> SimulatedCloud:
        return self._identity_cloud if type_name in KEYSTONE_TYPES else self.cloud

    def _adapter(self, type_name: str) -> TypeAdapter:
        adapter = self._adapters.get(type_name)
        if adapter is None:
            raise Permanent(f"the simulated cloud does not serve {type_name}")
        return adapter
