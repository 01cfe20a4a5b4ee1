"""OS::Glance::WebImage on the simulated cloud: made queued, imported from its location through
`importing` to `active`, its marker kept as tags, as the OpenStack provider does over HTTP."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from providers.interface import LiveResource, Marker, Permanent
from providers.marker_text import bounded_name
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.adapter import TaggedCollection
from providers.simulated.inventory import Body

PLAIN_KEYS = ("id", "min_disk", "min_ram", "protected", "disk_format", "container_format", "visibility",
              "kernel_id", "ramdisk_id", "architecture", "os_distro", "os_version", "owner")  # fmt: skip


class WebImage(TaggedCollection):
    type_name = "OS::Glance::WebImage"
    collection = "images"
    passthrough: ClassVar[Mapping[str, str]] = {"name": "name", **{key: key for key in PLAIN_KEYS}}

    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        request = self.create_request(cloud, properties, marker)
        request.setdefault(
            "name", bounded_name(f"{marker.stack}-{marker.resource}", f"-{marker.record_id[:12]}")
        )
        request |= {str(key): str(value) for key, value in (properties.get("extra_properties") or {}).items()}
        image = cloud.create("images", request)
        uri = properties.get("location")
        imported = cloud.act(
            "images", image["id"], "import", {"method": {"name": "web-download", "uri": uri}}
        )
        return self.live(cloud, imported)

    def update(
        self, cloud: SimulatedCloud, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        unknown = changed - {*PLAIN_KEYS, "tags", "extra_properties"}
        if unknown:
            raise Permanent(f"{self.type_name} cannot change {sorted(unknown)} in place")
        request: Body = {key: properties.get(key) for key in changed if key in PLAIN_KEYS}
        removed = [key for key, value in request.items() if value is None]
        request = {key: value for key, value in request.items() if value is not None}
        request |= {str(key): str(value) for key, value in (properties.get("extra_properties") or {}).items()}
        if removed or request:
            cloud.update("images", physical_id, {**request, "_removed": removed})
        return super().update(cloud, physical_id, properties, changed & {"tags"})

    def properties_of(self, body: Body) -> dict[str, Any]:
        return {key: body[key] for key in ("name", *PLAIN_KEYS[1:]) if key in body}


TYPES = (WebImage,)
