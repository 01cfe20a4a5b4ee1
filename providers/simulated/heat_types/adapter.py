"""The shape every type adapter has, and the default behaviour of a tagged collection.

A tagged collection (most of Nova and Neutron) keeps the idempotency marker in its `tags`, with the
stack tag beside it, each a digest when the service would refuse it as it is (see
`providers.marker_text`); Cinder volumes keep it as a metadata entry. Observation reads the collection
in pages of ids, one call per page, never one call per resource.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import replace
from typing import Any, ClassVar

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.marker_text import NEUTRON_TAG, TextLimit, is_digest
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.heat_types.resolving import NameResolver
from providers.simulated.inventory import Body

PAGE_SIZE = 1000
STACK_TAG_PREFIX = f"{Marker.PREFIX}-stack:"
# The model's own bookkeeping fields, never shown (see providers.simulated.compute and .network).
INTERNAL_FIELDS = ("_ports", "_created_ports", "_user_data", "_scheduler_hints", "_flavor_id", "_old_flavor",
                   "_next_host", "_projects")  # fmt: skip
INTERNAL_FIELD_SET = frozenset(INTERNAL_FIELDS)
READY_STATUSES = frozenset({"ACTIVE", "available", "in-use", "DOWN", "SHUTOFF", "SUSPENDED", "active"})
FAILED_STATUSES = frozenset({"ERROR", "error", "error_extending", "error_deleting", "killed"})


def live_status(body: Body) -> LiveStatus:
    status = body.get("status")
    if status is None or status in READY_STATUSES:
        return LiveStatus.READY
    if status in FAILED_STATUSES:
        return LiveStatus.FAILED
    return LiveStatus.IN_PROGRESS


def split_tags(body: Body) -> tuple[Marker | None, list[str]]:
    """The marker among a body's tags, and the tags a template set (without marker and stack tags)."""
    marker = None
    user: list[str] = []
    for tag in body.get("tags") or ():
        if not tag.startswith(Marker.PREFIX):
            user.append(tag)
        elif not tag.startswith(STACK_TAG_PREFIX) and not is_digest(tag):
            parsed = Marker.parse(tag)
            if parsed is None:
                user.append(tag)
            elif marker is None:
                marker = parsed
    return marker, user


def user_tags(body: Body) -> list[str]:
    """The tags a template set, without the marker and stack tags this provider adds."""
    return split_tags(body)[1]


def pages(ids: Collection[str]) -> list[list[str]]:
    ordered = list(ids)
    return [ordered[start : start + PAGE_SIZE] for start in range(0, len(ordered), PAGE_SIZE)]


class TaggedCollection:
    """A type backed by one collection whose items carry the marker as a tag."""

    type_name: ClassVar[str] = ""
    collection: ClassVar[str] = ""
    # template property -> API field, for properties passed through unchanged
    passthrough: ClassVar[Mapping[str, str]] = {}
    tag_limit: ClassVar[TextLimit] = NEUTRON_TAG  # what the service keeps of a tag

    def __init__(self, resolver: NameResolver) -> None:
        self.resolver = resolver

    # creation
    def create(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        body = cloud.create(self.collection, self.create_request(cloud, properties, marker))
        return self.live(cloud, body)

    def create_request(self, cloud: SimulatedCloud, properties: Mapping[str, Any], marker: Marker) -> Body:
        request = self.fields(cloud, properties)
        fitted = self.tag_limit.fitted
        request["tags"] = [*(properties.get("tags") or ()), fitted(marker.tag), fitted(marker.stack_tag)]
        return request

    def fields(self, cloud: SimulatedCloud, properties: Mapping[str, Any]) -> Body:
        """API fields for the template properties given (override to resolve names, rename keys)."""
        return {
            field: properties[name]
            for name, field in self.passthrough.items()
            if name in properties and properties[name] is not None
        }

    # change
    def update(
        self,
        cloud: SimulatedCloud,
        physical_id: str,
        properties: Mapping[str, Any],
        changed: frozenset[str],
    ) -> LiveResource:
        if "tags" in changed:
            current = cloud.get(self.collection, physical_id)
            kept = [tag for tag in current.get("tags") or () if tag not in user_tags(current)]
            cloud.act(
                self.collection, physical_id, "set_tags", {"tags": [*kept, *(properties.get("tags") or ())]}
            )
        request = self.fields(cloud, {name: properties.get(name) for name in changed if name != "tags"})
        if request:
            body = cloud.update(self.collection, physical_id, request)
        else:
            body = cloud.get(self.collection, physical_id)
        return self.live(cloud, body)

    def delete(self, cloud: SimulatedCloud, physical_id: str) -> None:
        cloud.delete(self.collection, physical_id)

    # reading
    def observe(self, cloud: SimulatedCloud, physical_ids: Collection[str]) -> dict[str, LiveResource]:
        found: dict[str, LiveResource] = {}
        for page in pages(physical_ids):
            for body in cloud.list(self.collection, ids=page):
                live = self.live(cloud, body)
                found[live.physical_id] = live
        return found

    def find_by_marker(self, cloud: SimulatedCloud, marker: Marker) -> LiveResource | None:
        """The item tagged with the text `marker` writes (a digest of it when the tag would not fit)."""
        bodies = cloud.list(self.collection, tags=[self.tag_limit.fitted(marker.tag)])
        return replace(self.live(cloud, bodies[0]), marker=marker) if bodies else None

    def live(self, cloud: SimulatedCloud, body: Body) -> LiveResource:
        marker, tags = split_tags(body)
        properties = self.properties_of(body)
        if "tags" in body:
            properties["tags"] = tags
        return LiveResource(
            physical_id=body["id"],
            type=self.type_name,
            status=live_status(body),
            properties=properties,
            attributes={**self.attributes_of(cloud, body), "show": shown(body)},
            marker=marker,
            status_reason=str((body.get("fault") or {}).get("message", "")),
            suspended=body.get("status") == "SUSPENDED",
        )

    def properties_of(self, body: Body) -> dict[str, Any]:
        """The template's view of the body (tags are added by `live`)."""
        return {name: body.get(field) for name, field in self.passthrough.items() if field in body}

    def attributes_of(self, cloud: SimulatedCloud, body: Body) -> dict[str, Any]:
        return {}


def shown(body: Body) -> Mapping[str, Any]:
    """The body as the API shows it, without the model's internal `_` fields; read-only."""
    return PublicBody(body)


class PublicBody(Mapping[str, Any]):
    """A read-only view of a body without its internal fields, made without copying it.

    Bodies are replaced wholesale on change, never changed in place, so the view stays what the
    cloud answered. Most callers never read `show`: a copy per answer was a cost on every create
    and every observed resource.
    """

    __slots__ = ("_body",)

    def __init__(self, body: Body) -> None:
        self._body = body

    def __getitem__(self, key: str) -> Any:
        if key in INTERNAL_FIELD_SET:
            raise KeyError(key)
        return self._body[key]

    def __iter__(self) -> Iterator[str]:
        return (key for key in self._body if key not in INTERNAL_FIELD_SET)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return repr(dict(self))


def require_found(found: Mapping[str, LiveResource], physical_id: str) -> LiveResource:
    live = found.get(physical_id)
    if live is None:
        raise NotFound(f"{physical_id} could not be found")
    return live
