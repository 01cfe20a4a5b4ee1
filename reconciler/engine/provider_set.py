"""The providers one cloud offers, by resource type, and the update rules read from their catalog."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol, runtime_checkable

from providers.interface import Provider, RegionCatalog, RegionNamed, ResourceType, ServiceCatalog


@runtime_checkable
class ValueAwareRules(Protocol):
    """A catalog entry whose replacement depends on the desired values (OS::Heat::TestResource)."""

    def replace_reasons_given(
        self, changed: Collection[str], desired: Mapping[str, Any]
    ) -> frozenset[str]: ...


class ProviderSet:
    """Type name -> provider for one cloud. Inline providers (native types) run on the engine's thread."""

    def __init__(self, providers: Collection[Provider], inline: Collection[Provider] = ()) -> None:
        self._catalogs = [provider for provider in providers if isinstance(provider, ServiceCatalog)]
        self._regions = [provider for provider in providers if isinstance(provider, RegionNamed)]
        self._region_catalogs = [provider for provider in providers if isinstance(provider, RegionCatalog)]
        self._by_type: dict[str, Provider] = {}
        self._types: dict[str, ResourceType] = {}
        self._inline: set[str] = set()
        for provider in (*providers, *inline):
            for name, entry in provider.resource_types().items():
                self._by_type[name] = provider
                self._types[name] = entry
        for provider in inline:
            self._inline.update(provider.resource_types())

    def provider_for(self, type_name: str) -> Provider | None:
        return self._by_type.get(type_name)

    def resource_type(self, type_name: str) -> ResourceType | None:
        return self._types.get(type_name)

    def service_types(self) -> frozenset[str] | None:
        """The services the cloud's catalog lists (None: no provider here can tell)."""
        if not self._catalogs:
            return None
        return frozenset().union(*(catalog.service_types() for catalog in self._catalogs))

    def region_name(self) -> str | None:
        """The region of the cloud these providers work in (None: none of them can tell)."""
        return next((name for provider in self._regions if (name := provider.region_name())), None)

    def region_names(self) -> frozenset[str] | None:
        """Every region of the cloud's catalog (None: no provider here can tell)."""
        if not self._region_catalogs:
            return None
        return frozenset().union(*(catalog.region_names() for catalog in self._region_catalogs))

    def is_inline(self, type_name: str) -> bool:
        return type_name in self._inline

    def replace_reasons(
        self, type_name: str, changed: frozenset[str], desired: Mapping[str, Any]
    ) -> frozenset[str]:
        """The plan layer's `UpdateRules`: unknown types replace on any change (conservative)."""
        entry = self._types.get(type_name)
        if entry is None:
            return changed
        if isinstance(entry, ValueAwareRules):
            return entry.replace_reasons_given(changed, desired)
        return entry.replace_reasons(changed)


class CloudProviders(Protocol):
    """The composition root's answer to "which providers serve the cloud named X"."""

    def for_cloud(self, cloud: str) -> ProviderSet: ...
