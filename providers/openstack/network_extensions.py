"""Which optional Neutron API extensions the cloud offers, read once per provider.

`tag-creation` lets a create body carry tags, so a marked network, port or subnet costs one
request; without it the marker tags follow in a `PUT .../tags` right after the create.
"""

from __future__ import annotations

import threading

from providers.openstack.json_api import JsonApi


class NetworkExtensions:
    def __init__(self, network: JsonApi) -> None:
        self._network = network
        self._aliases: frozenset[str] | None = None
        self._lock = threading.Lock()

    def offers(self, alias: str) -> bool:
        with self._lock:
            if self._aliases is None:
                extensions = self._network.get("/extensions").get("extensions") or []
                self._aliases = frozenset(extension["alias"] for extension in extensions)
            return alias in self._aliases
