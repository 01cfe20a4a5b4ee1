"""A tagged Neutron resource (network, subnet, port, router, security group, rule, floating IP).

Create is one `POST` carrying the marker tags (or, on clouds without Neutron's `tag-creation`
extension, a `POST` then `PUT .../tags`). Security group rules take no tags: their marker is the
`description` when the template gives none (see `NeutronTable.marker_field`). Observe asks for the
wanted ids with `id` filters when they are few, and pages through the whole project's collection
when they are many, so the number of requests follows pages, never resources. `find_by_marker` is
one list filtered by the tag (or the description) and recognises the item by that text, which may
be a digest of the marker (see `providers.marker_text`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, Marker
from providers.marker_text import NEUTRON_DESCRIPTION, TextLimit, is_digest
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.marker_tags import (
    MANAGED_TAG,
    is_marker_tag,
    marker_from_tags,
    marker_tag,
    marker_tags,
    user_tags,
)
from providers.openstack.neutron_table import NeutronTable, neutron_status

ID_FILTER_LIMIT = 100  # above this many ids, one paged list of the project is cheaper than filters
# Earlier versions wrote a digest for any Neutron tag holding "/" (every nested stack's marker).
EARLIER_NEUTRON_TAG = TextLimit(255, "/,")


@dataclass(frozen=True)
class NeutronResourceHandler:
    apis: CloudApis
    table: NeutronTable

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = self.table.body(properties, self.apis.names)
        if not self.table.tagged:
            if self.table.marker_field and not body.get(self.table.marker_field):
                body[self.table.marker_field] = NEUTRON_DESCRIPTION.fitted(marker.tag)
            return self.live(
                self.apis.network.post(self.table.path, {self.table.singular: body})[self.table.singular]
            )
        tags = [*(properties.get("tags") or []), *marker_tags(marker)]
        tag_in_body = self.apis.network_extensions.offers("tag-creation")
        if tag_in_body:
            body["tags"] = tags
        item = self.apis.network.post(self.table.path, {self.table.singular: body})[self.table.singular]
        if not tag_in_body:
            self.apis.network.put(f"{self.table.path}/{item['id']}/tags", {"tags": tags})
            item["tags"] = tags
        return self.live(item)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        path = f"{self.table.path}/{physical_id}"
        body = self.table.body(properties, self.apis.names, only=changed)
        if body:
            item = self.apis.network.put(path, {self.table.singular: body})[self.table.singular]
        else:
            item = self.apis.network.get(path)[self.table.singular]
        if "tags" in changed:
            kept = [tag for tag in item.get("tags") or [] if is_marker_tag(tag)]
            tags = [*(properties.get("tags") or []), *kept]
            self.apis.network.put(f"{path}/tags", {"tags": tags})
            item["tags"] = tags
        return self.live(item)

    def delete(self, physical_id: str) -> None:
        self.apis.network.delete(f"{self.table.path}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        wanted = set(physical_ids)
        return {item["id"]: self.live(item) for item in self.listed(wanted) if item["id"] in wanted}

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        """The item carrying the text `marker` writes (in clear or as a digest), with that marker."""
        for field, value in self.marker_queries(marker):
            for item in self.apis.network.list_all(self.table.path, self.table.collection, {field: value}):
                stored = item.get(field)
                if value in (stored if isinstance(stored, list) else [stored]):
                    return replace(self.live(item), marker=marker)
        return None

    def marker_queries(self, marker: Marker) -> list[tuple[str, str]]:
        """The list filters that find `marker`'s item: its tag as written now and, for items made
        before nested stacks' tags were kept in clear, the digest written then."""
        if self.table.tagged:
            return [
                ("tags", tag)
                for tag in dict.fromkeys((marker_tag(marker), EARLIER_NEUTRON_TAG.fitted(marker.tag)))
            ]
        if self.table.marker_field:
            return [(self.table.marker_field, NEUTRON_DESCRIPTION.fitted(marker.tag))]
        return []

    def listed(self, wanted: set[str]) -> Iterator[dict[str, Any]]:
        """Few ids: `id` filters. Many: this provider's items (the managed tag), then the whole
        project's list only when some wanted id was not among them."""
        if not wanted:
            return
        if len(wanted) <= ID_FILTER_LIMIT:
            yield from self.apis.network.list_all(
                self.table.path, self.table.collection, {"id": sorted(wanted)}
            )
            return
        missing = set(wanted)
        if self.table.tagged:
            for item in self.apis.network.list_all(
                self.table.path, self.table.collection, {"tags": MANAGED_TAG}
            ):
                missing.discard(item["id"])
                yield item
        if missing:
            for item in self.apis.network.list_all(self.table.path, self.table.collection):
                if item["id"] in missing:
                    yield item

    def live(self, item: Mapping[str, Any]) -> LiveResource:
        tags = item.get("tags") or []
        status, reason = neutron_status(item)
        properties = self.table.observed_properties(item)
        attributes: dict[str, Any] = {name: item.get(name) for name in self.table.attributes}
        marker = marker_from_tags(tags)
        if self.table.tagged:
            properties["tags"] = user_tags(tags)
        elif self.table.marker_field and isinstance(item.get(self.table.marker_field), str):
            marker = Marker.parse(item[self.table.marker_field])
            if marker is not None or is_digest(item[self.table.marker_field]):
                properties[self.table.marker_field] = None
        return LiveResource(
            physical_id=item["id"],
            type=self.table.type_name,
            status=status,
            status_reason=reason,
            properties=properties,
            attributes={**attributes, "show": dict(item)},
            marker=marker,
        )
