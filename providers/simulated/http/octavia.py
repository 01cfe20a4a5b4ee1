"""Octavia (load-balancer v2) over HTTP, under `/load-balancer/v2/lbaas`: load balancers, listeners,
pools with their members, health monitors, L7 policies with their rules, flavors and flavor
profiles. Lists take `limit` / `marker` (with `<collection>_links`), `name`, `tags` (all of),
`tags-any` and exact field filters; creates answer 201, updates 200 (the object PENDING_UPDATE),
deletes 204 (the object PENDING_DELETE), a load balancer's DELETE takes `cascade=true`. A pool's
batch member update (`PUT .../pools/{pool_id}/members`, `additive_only=true` to keep the members not
listed) answers 202 with no body. Errors are Octavia's WSME bodies (`faultcode`, `faultstring`,
`debuginfo`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import links, next_url, page_limit
from providers.simulated.http.routing import Handler, Route
from providers.simulated.inventory import Body
from providers.simulated.load_balancing import DELETE_ACTION, MEMBER_BATCH_ACTION

SERVICE = "octavia"
ROOT = "/load-balancer"
PREFIX = f"{ROOT}/{{api_version}}/lbaas"
API_VERSIONS = frozenset({"v2", "v2.0"})  # Octavia answers under both; the SDK asks under v2.0
LATEST_VERSION = "v2.27"
NOT_FILTERS = frozenset(
    {
        "limit",
        "marker",
        "page_reverse",
        "sort",
        "sort_key",
        "sort_dir",
        "fields",
        "tags",
        "tags-any",
        "not-tags",
        "not-tags-any",
        "name",
        "cascade",
    }
)


@dataclass(frozen=True)
class Kind:
    """One Octavia collection: its URL segment, its model collection and its JSON keys."""

    segment: str  # "loadbalancers", or "members" under "pools/{parent}"
    collection: str  # the model's collection
    singular: str  # the JSON key of one object
    parent: str | None = None  # the parent's URL segment for nested collections
    parent_key: str | None = None  # the model field naming the parent (hidden or shown)
    read_only: bool = False
    asynchronous: bool = True

    @property
    def plural(self) -> str:
        return self.segment

    def base(self) -> str:
        if self.parent is None:
            return f"{PREFIX}/{self.segment}"
        return f"{PREFIX}/{self.parent}/{{parent}}/{self.segment}"


KINDS = (
    Kind("loadbalancers", "loadbalancers", "loadbalancer"),
    Kind("listeners", "listeners", "listener"),
    Kind("pools", "pools", "pool"),
    Kind("members", "members", "member", parent="pools", parent_key="_pool_id"),
    Kind("healthmonitors", "healthmonitors", "healthmonitor"),
    Kind("l7policies", "l7policies", "l7policy"),
    Kind("rules", "l7rules", "rule", parent="l7policies", parent_key="_l7policy_id"),
    Kind("flavors", "lb_flavors", "flavor", asynchronous=False),
    Kind("flavorprofiles", "lb_flavor_profiles", "flavorprofile", read_only=True, asynchronous=False),
)
REQUEST_PARENT_KEYS = {"_pool_id": "pool_id", "_l7policy_id": "l7policy_id"}


def versioned(handler: Handler) -> Handler:
    def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        if params["api_version"] not in API_VERSIONS:
            raise ItemNotFound(f"The resource could not be found: {request.path}")
        return handler(request, params)

    return handle


def field_filter(request: ApiRequest, parent: tuple[str, str] | None) -> Callable[[Body], bool] | None:
    """Exact field filters, `not-tags`, and the parent of a nested collection, as one predicate."""
    fields = {key: values for key, values in request.query.items() if key not in NOT_FILTERS}
    excluded = set(request.all("not-tags"))
    if not fields and not excluded and parent is None:
        return None

    def wanted(body: Body) -> bool:
        if parent is not None and body.get(parent[0]) != parent[1]:
            return False
        if excluded and excluded <= set(body.get("tags", ())):
            return False
        return all(str(body.get(key)) in values for key, values in fields.items())

    return wanted


class Octavia:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        routes = [
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("GET", f"{ROOT}/v2", self.versions, SERVICE, public=True),
        ]
        for kind in KINDS:
            base = kind.base()
            table: list[tuple[str, str, Handler]] = [
                ("GET", base, self._lister(kind)),
                ("GET", base + "/{id}", self._getter(kind)),
            ]
            if not kind.read_only:
                table += [
                    ("POST", base, self._creator(kind)),
                    ("PUT", base + "/{id}", self._updater(kind)),
                    ("DELETE", base + "/{id}", self._deleter(kind)),
                ]
            routes += [Route.of(method, path, versioned(handler), SERVICE) for method, path, handler in table]
        members = next(kind for kind in KINDS if kind.segment == "members")
        routes.append(Route.of("PUT", members.base(), versioned(self.batch_members), SERVICE))
        return routes

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        shown = [
            {
                "id": version,
                "status": status,
                "updated": "2023-01-01T00:00:00Z",
                "links": [{"rel": "self", "href": request.url(f"{ROOT}/v2")}],
            }
            for version, status in (("v2.0", "SUPPORTED"), (LATEST_VERSION, "CURRENT"))
        ]
        return reply(200, {"versions": shown})

    def _lister(self, kind: Kind) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            parent = self._parent(kind, params)
            items, more = self.cloud.page(
                kind.collection,
                limit=page_limit(request),
                marker=request.first("marker"),
                name=request.first("name"),
                tags=request.all("tags"),
                tags_any=request.all("tags-any"),
                predicate=field_filter(request, parent),
            )
            body: dict[str, Any] = {kind.plural: [shown(item) for item in items]}
            body[f"{kind.plural}_links"] = links(next_url(request, items, more))
            return reply(200, body)

        return handle

    def _creator(self, kind: Kind) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            wanted = request.member(kind.singular)
            parent = self._parent(kind, params)
            if parent is not None and kind.parent_key is not None:
                wanted[REQUEST_PARENT_KEYS[kind.parent_key]] = parent[1]
            return reply(201, {kind.singular: shown(self.cloud.create(kind.collection, wanted))})

        return handle

    def _getter(self, kind: Kind) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(200, {kind.singular: shown(self._item(kind, params))})

        return handle

    def _updater(self, kind: Kind) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._check_parent(kind, params)
            changed = self.cloud.update(kind.collection, params["id"], request.member(kind.singular))
            return reply(200, {kind.singular: shown(changed)})

        return handle

    def _deleter(self, kind: Kind) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._check_parent(kind, params)
            if not kind.asynchronous:
                self.cloud.delete(kind.collection, params["id"])
                return reply(204)
            cascade = (request.first("cascade") or "").lower() == "true"
            self.cloud.act(kind.collection, params["id"], DELETE_ACTION, {"cascade": cascade})
            return reply(204)

        return handle

    def batch_members(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        """Octavia's batch member update: the pool's members become the list sent."""
        listed = request.body.get("members") if isinstance(request.body, Mapping) else None
        if not isinstance(listed, list) or not all(isinstance(member, Mapping) for member in listed):
            raise BadRequest("Invalid input for field/attribute members. Value: a list of members expected.")
        wanted = {
            "members": [dict(member) for member in listed],
            "additive_only": (request.first("additive_only") or "").lower() in ("true", "1"),
        }
        self.cloud.act("pools", params["parent"], MEMBER_BATCH_ACTION, wanted)
        return reply(202)

    def _item(self, kind: Kind, params: Mapping[str, str]) -> Body:
        """The addressed object; 404 as well when it is not under the parent the URL names."""
        body = self.cloud.get(kind.collection, params["id"])
        parent = self._parent(kind, params)
        if parent is not None and body.get(parent[0]) != parent[1]:
            raise ItemNotFound(f"{kind.singular} {params['id']} not found.")
        return body

    def _check_parent(self, kind: Kind, params: Mapping[str, str]) -> None:
        """A nested object's change is refused (404) under a parent it does not belong to."""
        if kind.parent is not None:
            self._item(kind, params)

    @staticmethod
    def _parent(kind: Kind, params: Mapping[str, str]) -> tuple[str, str] | None:
        """The hidden model field and value that place a nested object under the URL's parent."""
        if kind.parent_key is None:
            return None
        return kind.parent_key, params["parent"]


def shown(body: Body) -> Body:
    return {key: value for key, value in body.items() if key[0] != "_"}
