"""OS::Glance::WebImage: an image made in Glance, then imported from its `location` (web-download).

The image carries the marker as tags (Glance keeps tags of up to 255 characters), beside
`reconciler-managed`, so observation is one paged list filtered by that tag and `find_by_marker`
one list filtered by the marker's. A create makes the image (`queued`) and starts the import in
a second request; readiness is `active`, which the engine waits for (`importing` in between). A
change goes as one JSON patch of the changed properties; tags keep the marker's.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, Permanent
from providers.openstack.json_api import JsonApi
from providers.openstack.marker_tags import (
    MANAGED_TAG,
    marker_from_tags,
    marker_tag,
    marker_tags,
    physical_name,
    user_tags,
)

TYPE_NAME = "OS::Glance::WebImage"
PATCH_TYPE = "application/openstack-images-v2.1-json-patch"
PLAIN_KEYS = ("id", "min_disk", "min_ram", "protected", "disk_format", "container_format", "visibility",
              "kernel_id", "ramdisk_id", "architecture", "os_distro", "os_version", "owner")  # fmt: skip
SHOWN_KEYS = ("name", *PLAIN_KEYS[1:])
READY, IN_PROGRESS = (
    frozenset({"active", "deactivated"}),
    frozenset({"queued", "saving", "importing", "uploading"}),
)


@dataclass(frozen=True)
class WebImageHandler:
    api: JsonApi

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body: dict[str, Any] = {"name": properties.get("name") or physical_name(marker)}
        body |= {key: properties[key] for key in PLAIN_KEYS if properties.get(key) is not None}
        body |= {str(key): str(value) for key, value in (properties.get("extra_properties") or {}).items()}
        body["tags"] = [*(properties.get("tags") or ()), *marker_tags(marker)]
        image = self.api.post("/images", body)
        self.api.post(
            f"/images/{image['id']}/import",
            {"method": {"name": "web-download", "uri": properties["location"]}},
        )
        return live_image({**image, "status": "importing"})

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"/images/{physical_id}"
        current = self.api.get(path)
        operations = [
            operation
            for key in sorted(changed & set(PLAIN_KEYS))
            if (operation := change(key, properties.get(key), key in current)) is not None
        ]
        if "tags" in changed:
            kept = [
                tag for tag in current.get("tags") or () if tag not in user_tags(current.get("tags") or ())
            ]
            operations.append(
                {"op": "replace", "path": "/tags", "value": [*kept, *(properties.get("tags") or ())]}
            )
        if "extra_properties" in changed:
            operations += extra_changes(current, properties.get("extra_properties") or {})
        unknown = changed - {*PLAIN_KEYS, "tags", "extra_properties"}
        if unknown:
            raise Permanent(f"{TYPE_NAME} cannot change {sorted(unknown)} in place")
        return live_image(self.api.patch(path, operations, PATCH_TYPE) if operations else current)

    def delete(self, physical_id: str) -> None:
        self.api.delete(f"/images/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        if not wanted:
            return {}
        found = {
            item["id"]: live_image(item)
            for item in self.api.list_all("/images", "images", {"tag": MANAGED_TAG})
            if item["id"] in wanted
        }
        if wanted - set(found):  # its tags were changed by hand: look among every image
            found |= {
                item["id"]: live_image(item)
                for item in self.api.list_all("/images", "images")
                if item["id"] in wanted
            }
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        images = list(self.api.list_all("/images", "images", {"tag": marker_tag(marker)}))
        return live_image(images[0], marker) if images else None


def change(key: str, value: Any, present: bool) -> dict[str, Any] | None:
    """The JSON patch operation that makes `key` hold `value` (None: remove it)."""
    if value is None:
        return {"op": "remove", "path": f"/{key}"} if present else None
    return {"op": "replace" if present else "add", "path": f"/{key}", "value": value}


def extra_changes(current: Mapping[str, Any], wanted: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Operations that set every wanted extra property (the ones no longer wanted are left: Glance
    does not say which of an image's properties were the template's)."""
    return [
        {"op": "replace" if key in current else "add", "path": f"/{key}", "value": str(value)}
        for key, value in wanted.items()
        if current.get(key) != str(value)
    ]


def live_image(image: Mapping[str, Any], marker: Marker | None = None) -> LiveResource:
    status = image.get("status")
    live_status = (
        LiveStatus.READY
        if status in READY
        else LiveStatus.IN_PROGRESS
        if status in IN_PROGRESS
        else LiveStatus.FAILED
    )
    tags = list(image.get("tags") or ())
    properties = {key: image.get(key) for key in SHOWN_KEYS if key in image}
    properties["tags"] = user_tags(tags)
    return LiveResource(
        physical_id=image["id"],
        type=TYPE_NAME,
        status=live_status,
        properties=properties,
        attributes={"show": dict(image)},
        marker=marker or marker_from_tags(tags),
        status_reason=f"image {image['id']} is {status}" if live_status is LiveStatus.FAILED else "",
    )
