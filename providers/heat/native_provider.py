"""The provider of native Heat types: resources that live in the engine's records, not in a cloud.

OS::Heat::None, Value, RandomString and AWS::AutoScaling::LaunchConfiguration (a record of the
properties its InstanceGroup reads) are ready the moment they are created. OS::Heat::TestResource
follows Heat's test type: `fail` fails the action with a permanent error, `wait_secs` (or
`action_wait_secs.create` / `.update`) keeps it IN_PROGRESS for that long on the injected clock, and
`attr_wait_secs` withholds its `output` attribute for that long after creation.

Limits: the provider keeps TestResource timings in memory only; after a restart an unknown physical
id is reported READY with no attributes (the engine keeps the attributes it recorded). Deletion is
immediate (`action_wait_secs.delete` is ignored), and `find_by_marker` never finds anything: a
native resource created before a crash was never recorded, so making it again is harmless.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.heat.native_types import (
    LAUNCH_CONFIGURATION,
    NATIVE_TYPES,
    NONE,
    RANDOM_STRING,
    TEST_RESOURCE,
    VALUE,
)
from providers.heat.random_string import RandomSource, RandomStringError, generate_random_string
from providers.interface import LiveResource, LiveStatus, Marker, Permanent, ResourceType
from timekeeping import Clock


@dataclass(frozen=True)
class _TestTiming:
    output: Any
    ready_at: float
    attributes_at: float


class NativeHeatProvider:
    """Serves every type of `NATIVE_TYPES`; safe to call from several threads."""

    def __init__(self, clock: Clock, random_source: RandomSource | None = None) -> None:
        self._clock = clock
        self._random: RandomSource = random_source or random.SystemRandom()
        self._lock = threading.Lock()
        self._timings: dict[str, _TestTiming] = {}

    def resource_types(self) -> Mapping[str, ResourceType]:
        return NATIVE_TYPES

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        physical_id = f"{marker.stack}-{marker.resource}-{marker.record_id}"
        return self._apply(type_name, physical_id, properties, "create", marker)

    def update(
        self,
        type_name: str,
        physical_id: str,
        properties: Mapping[str, Any],
        changed: frozenset[str],
    ) -> LiveResource:
        return self._apply(type_name, physical_id, properties, "update", None)

    def delete(self, type_name: str, physical_id: str) -> None:
        with self._lock:
            self._timings.pop(physical_id, None)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        if type_name != TEST_RESOURCE:
            return {pid: LiveResource(pid, type_name, LiveStatus.READY) for pid in physical_ids}
        return {pid: self._observe_test_resource(pid) for pid in physical_ids}

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        return None

    def _apply(
        self,
        type_name: str,
        physical_id: str,
        properties: Mapping[str, Any],
        action: str,
        marker: Marker | None,
    ) -> LiveResource:
        if type_name in (NONE, LAUNCH_CONFIGURATION):
            return LiveResource(physical_id, type_name, LiveStatus.READY, properties, {}, marker)
        if type_name == VALUE:
            attributes = {"value": properties.get("value")}
            return LiveResource(physical_id, type_name, LiveStatus.READY, properties, attributes, marker)
        if type_name == RANDOM_STRING:
            return self._random_string(physical_id, properties, marker)
        if type_name == TEST_RESOURCE:
            return self._test_resource(physical_id, properties, action, marker)
        raise Permanent(f"{type_name} is not a native Heat type this provider serves")

    def _random_string(
        self, physical_id: str, properties: Mapping[str, Any], marker: Marker | None
    ) -> LiveResource:
        try:
            value = generate_random_string(properties, self._random)
        except RandomStringError as error:
            raise Permanent(f"OS::Heat::RandomString: {error}") from error
        return LiveResource(
            physical_id, RANDOM_STRING, LiveStatus.READY, properties, {"value": value}, marker
        )

    def _test_resource(
        self, physical_id: str, properties: Mapping[str, Any], action: str, marker: Marker | None
    ) -> LiveResource:
        if properties.get("fail") is True:
            raise Permanent(f"Test Resource failed: {action} of {physical_id} asked to fail")
        waits = properties.get("action_wait_secs") or {}
        wait = float(waits.get(action, properties.get("wait_secs") or 0))
        now = self._clock.now()
        timing = _TestTiming(
            output=properties.get("value", "test_string"),
            ready_at=now + wait,
            attributes_at=now + float(properties.get("attr_wait_secs") or 0),
        )
        with self._lock:
            self._timings[physical_id] = timing
        live = self._observe_test_resource(physical_id)
        return LiveResource(physical_id, TEST_RESOURCE, live.status, properties, live.attributes, marker)

    def _observe_test_resource(self, physical_id: str) -> LiveResource:
        with self._lock:
            timing = self._timings.get(physical_id)
        if timing is None:
            return LiveResource(physical_id, TEST_RESOURCE, LiveStatus.READY)
        now = self._clock.now()
        status = LiveStatus.READY if now >= timing.ready_at else LiveStatus.IN_PROGRESS
        attributes = {"output": timing.output} if now >= timing.attributes_at else {}
        return LiveResource(physical_id, TEST_RESOURCE, status, {}, attributes)
