"""Counting cloud calls by service, operation and outcome for /metrics, by wrapping the providers.

The engine asks `for_cloud(name)` for a `ProviderSet` and `provider_for(type)` for a provider;
here every provider it gets back counts each call under the service of the resource type, the
operation and how it ended (`cloud_call_labels`) before any error travels on unchanged. Nothing
else about the providers or the engine changes.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import Any, TypeVar

from providers.interface import (
    CreatesLater,
    Deliver,
    LiveResource,
    Marker,
    Permanent,
    Provider,
    ResourceType,
    Snapshotting,
    Suspending,
)
from reconciler.daemon.cloud_call_labels import OK, outcome_of, service_of
from reconciler.engine.provider_set import CloudProviders, ProviderSet

T = TypeVar("T")
CallKey = tuple[str, str, str]  # service, operation, outcome


class CallMeter:
    """Thread-safe tallies of cloud calls by (service, operation, outcome)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: Counter[CallKey] = Counter()

    def called(self, type_name: str, operation: str, outcome: str) -> None:
        key = (service_of(type_name), operation, outcome)
        with self._lock:
            self._calls[key] += 1

    def calls(self) -> dict[CallKey, int]:
        with self._lock:
            return dict(self._calls)


class MeteredProvider:
    """A provider that tells the meter how each call ended, then behaves as `inner`."""

    def __init__(self, inner: Provider, meter: CallMeter) -> None:
        self.inner = inner
        self.meter = meter

    def resource_types(self) -> Mapping[str, ResourceType]:
        return self.inner.resource_types()

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self._metered(type_name, "create", partial(self.inner.create, type_name, properties, marker))

    def create_later(
        self, type_name: str, properties: Mapping[str, Any], marker: Marker, deliver: Deliver
    ) -> LiveResource | None:
        """`CreatesLater` passed on when `inner` can; a create answered later is metered then."""
        if not isinstance(self.inner, CreatesLater):
            return self.create(type_name, properties, marker)

        def metered(outcome: Callable[[], LiveResource]) -> None:
            deliver(partial(self._metered, type_name, "create", outcome))

        try:
            live = self.inner.create_later(type_name, properties, marker, metered)
        except Exception as error:
            self.meter.called(type_name, "create", outcome_of(error))
            raise
        if live is not None:
            self.meter.called(type_name, "create", OK)
        return live

    def update(
        self, type_name: str, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        call = partial(self.inner.update, type_name, physical_id, properties, changed)
        return self._metered(type_name, "update", call)

    def delete(self, type_name: str, physical_id: str) -> None:
        self._metered(type_name, "delete", partial(self.inner.delete, type_name, physical_id))

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return self._metered(type_name, "observe", partial(self.inner.observe, type_name, physical_ids))

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        call = partial(self.inner.find_by_marker, type_name, marker)
        return self._metered(type_name, "find_by_marker", call)

    # Lifecycle calls some providers make (`Snapshotting`, `Suspending`): passed on when `inner` can.
    def snapshot(self, type_name: str, physical_id: str, marker: Marker) -> str:
        if not isinstance(self.inner, Snapshotting):
            raise Permanent(f'"Snapshot" deletion policy not supported for {type_name}')
        call = partial(self.inner.snapshot, type_name, physical_id, marker)
        return self._metered(type_name, "snapshot", call)

    def can_suspend(self, type_name: str) -> bool:
        return isinstance(self.inner, Suspending) and self.inner.can_suspend(type_name)

    def suspend(self, type_name: str, physical_id: str) -> LiveResource:
        if not isinstance(self.inner, Suspending):
            raise Permanent(f"{type_name} cannot be suspended")
        return self._metered(type_name, "suspend", partial(self.inner.suspend, type_name, physical_id))

    def resume(self, type_name: str, physical_id: str) -> LiveResource:
        if not isinstance(self.inner, Suspending):
            raise Permanent(f"{type_name} cannot be suspended")
        return self._metered(type_name, "resume", partial(self.inner.resume, type_name, physical_id))

    def _metered(self, type_name: str, operation: str, call: Callable[[], T]) -> T:
        try:
            result = call()
        except Exception as error:
            self.meter.called(type_name, operation, outcome_of(error))
            raise
        self.meter.called(type_name, operation, OK)
        return result


class MeteredProviderSet(ProviderSet):
    """`inner`, with every provider it hands out metered. Every query is answered by `inner`."""

    def __init__(self, inner: ProviderSet, meter: CallMeter) -> None:
        super().__init__(providers=())
        self._inner_set = inner
        self._meter = meter
        self._metered: dict[int, MeteredProvider] = {}
        self._lock = threading.Lock()

    def provider_for(self, type_name: str) -> Provider | None:
        provider = self._inner_set.provider_for(type_name)
        if provider is None:
            return None
        with self._lock:
            metered = self._metered.get(id(provider))
            if metered is None:
                metered = self._metered[id(provider)] = MeteredProvider(provider, self._meter)
        return metered

    def resource_type(self, type_name: str) -> ResourceType | None:
        return self._inner_set.resource_type(type_name)

    def is_inline(self, type_name: str) -> bool:
        return self._inner_set.is_inline(type_name)

    def region_name(self) -> str | None:
        return self._inner_set.region_name()

    def region_names(self) -> frozenset[str] | None:
        return self._inner_set.region_names()

    def service_types(self) -> frozenset[str] | None:
        return self._inner_set.service_types()

    def replace_reasons(
        self, type_name: str, changed: frozenset[str], desired: Mapping[str, Any]
    ) -> frozenset[str]:
        return self._inner_set.replace_reasons(type_name, changed, desired)


class MeteredClouds:
    """The engine's `CloudProviders`, metered: one metered set per cloud name."""

    def __init__(self, clouds: CloudProviders, meter: CallMeter) -> None:
        self.clouds = clouds
        self.meter = meter
        self._sets: dict[str, MeteredProviderSet] = {}
        self._lock = threading.Lock()

    def for_cloud(self, cloud: str) -> ProviderSet:
        with self._lock:
            if cloud not in self._sets:
                self._sets[cloud] = MeteredProviderSet(self.clouds.for_cloud(cloud), self.meter)
            return self._sets[cloud]
