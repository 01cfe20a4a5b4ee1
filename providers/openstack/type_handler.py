"""The shape every per-type module of this provider has: the five provider calls for one type."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from providers.interface import LiveResource, Marker


class TypeHandler(Protocol):
    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource: ...

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource: ...

    def delete(self, physical_id: str) -> None: ...

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]: ...

    def find_by_marker(self, marker: Marker) -> LiveResource | None: ...
