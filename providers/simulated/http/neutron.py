"""Neutron (networking v2.0) over HTTP: networks (provider networks too), subnets, ports, routers with
interfaces, security groups and rules, floating IPs, trunks, QoS policies with their rules
(`neutron_qos`), subnet pools, address scopes and per-project quotas; field filters, `tags` /
`tags-any` / `not-tags` filters, `fields`, tag sub-resources, marker pagination with
`<collection>_links`, and bulk create.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.neutron_qos import QosRulesFace
from providers.simulated.http.paging import links, next_url, page_limit
from providers.simulated.http.quota_faces import QuotaFace
from providers.simulated.http.routing import Handler, Route
from providers.simulated.inventory import Body
from providers.simulated.quota_sets import NETWORK_QUOTAS

SERVICE = "neutron"
PREFIX = "/networking/v2.0"
# URL segment -> (model collection, singular JSON key)
COLLECTIONS = {
    "address-scopes": ("address_scopes", "address_scope"),
    "networks": ("networks", "network"),
    "subnets": ("subnets", "subnet"),
    "ports": ("ports", "port"),
    "routers": ("routers", "router"),
    "security-groups": ("security_groups", "security_group"),
    "security-group-rules": ("security_group_rules", "security_group_rule"),
    "floatingips": ("floatingips", "floatingip"),
    "trunks": ("trunks", "trunk"),
    "qos/policies": ("qos_policies", "policy"),
    "subnetpools": ("subnetpools", "subnetpool"),
}
NOT_FILTERS = frozenset(
    {"limit", "marker", "fields", "sort_key", "sort_dir", "page_reverse", "tags", "tags-any", "not-tags",
     "not-tags-any", "project_id", "tenant_id", "name"}
)  # fmt: skip
EXTENSIONS = (
    "external-net", "router", "extraroute", "security-group", "port-security", "standard-attr-tag",
    "tag-ext", "standard-attr-description", "standard-attr-timestamp", "binding", "allowed-address-pairs",
    "dns-integration", "quotas", "agent", "network-mtu", "subnet_allocation", "tag-creation", "trunk",
    "address-scope", "provider", "qos", "qos-bw-minimum-ingress", "subnetpool-prefix-ops",
)  # fmt: skip


def list_key(segment: str) -> str:
    """The key of a collection's list body: `qos/policies` lists `policies`."""
    return segment.rsplit("/", 1)[-1].replace("-", "_")


def matches(body: Body, key: str, wanted: list[str]) -> bool:
    value = body.get(key)
    if isinstance(value, bool):
        return str(value).lower() in {item.lower() for item in wanted}
    if key == "fixed_ips":
        return True  # filtering by fixed_ips sub-fields is not modelled
    return str(value) in wanted or (value is None and "" in wanted)


def filter_of(request: ApiRequest) -> Callable[[Body], bool] | None:
    """The field and `not-tags` filters of a list request, as one predicate (None when there are none)."""
    fields = {key: wanted for key, wanted in request.query.items() if key not in NOT_FILTERS}
    excluded_all = set(request.all("not-tags"))
    excluded_any = set(request.all("not-tags-any"))
    if not fields and not excluded_all and not excluded_any:
        return None

    def wanted(body: Body) -> bool:
        tags = set(body.get("tags", ()))
        if excluded_all and excluded_all <= tags:
            return False
        if excluded_any and excluded_any & tags:
            return False
        return all(matches(body, key, values) for key, values in fields.items())

    return wanted


class Neutron:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        routes = [
            Route.of("GET", "/networking", self.versions, SERVICE, public=True),
            Route.of("GET", PREFIX, self.resources, SERVICE, public=True),
            Route.of("GET", PREFIX + "/extensions", self.extensions, SERVICE),
        ]
        for segment, (collection, key) in COLLECTIONS.items():
            base = f"{PREFIX}/{segment}"
            table: list[tuple[str, str, Handler]] = [
                ("GET", base, self._lister(collection, segment)),
                ("POST", base, self._creator(collection, key, segment)),
                ("GET", base + "/{id}", self._getter(collection, key)),
                ("PUT", base + "/{id}", self._updater(collection, key)),
                ("DELETE", base + "/{id}", self._deleter(collection)),
                ("GET", base + "/{id}/tags", self._tag_reader(collection)),
                ("PUT", base + "/{id}/tags", self._tags_replacer(collection)),
                ("DELETE", base + "/{id}/tags", self._tags_clearer(collection)),
                ("GET", base + "/{id}/tags/{tag}", self._tag_checker(collection)),
                ("PUT", base + "/{id}/tags/{tag}", self._tag_adder(collection)),
                ("DELETE", base + "/{id}/tags/{tag}", self._tag_remover(collection)),
            ]
            routes += [Route.of(method, path, handler, SERVICE) for method, path, handler in table]
        for action in ("add_router_interface", "remove_router_interface"):
            routes.append(
                Route.of("PUT", f"{PREFIX}/routers/{{id}}/{action}", self._interface(action), SERVICE)
            )
        for action in ("add_subports", "remove_subports"):
            routes.append(
                Route.of("PUT", f"{PREFIX}/trunks/{{id}}/{action}", self._subports(action), SERVICE)
            )
        routes.append(Route.of("GET", f"{PREFIX}/trunks/{{id}}/get_subports", self._subports_reader, SERVICE))
        routes += QosRulesFace(self.cloud).routes(PREFIX, SERVICE)
        quotas = QuotaFace(self.cloud, NETWORK_QUOTAS, "quota")
        routes += [
            Route.of("GET", f"{PREFIX}/quotas/{{id}}", quotas.show, SERVICE),
            Route.of("PUT", f"{PREFIX}/quotas/{{id}}", quotas.set_limits, SERVICE),
            Route.of("DELETE", f"{PREFIX}/quotas/{{id}}", quotas.revert, SERVICE),
        ]
        return routes

    # discovery
    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {
            "id": "v2.0",
            "status": "CURRENT",
            "links": [{"rel": "self", "href": request.url(PREFIX + "/")}],
        }
        return reply(200, {"versions": [version]})

    def resources(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        listed = [
            {
                "name": key,
                "collection": segment,
                "links": [{"rel": "self", "href": request.url(f"{PREFIX}/{segment}")}],
            }
            for segment, (_, key) in COLLECTIONS.items()
        ]
        return reply(200, {"resources": listed})

    def extensions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        listed = [
            {"alias": alias, "name": alias, "description": "", "updated": "2020-01-01T00:00:00Z", "links": []}
            for alias in EXTENSIONS
        ]
        return reply(200, {"extensions": listed})

    # collections
    def _lister(self, collection: str, segment: str) -> Handler:
        def handle(request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
            items, more = self.cloud.page(
                collection,
                limit=page_limit(request),
                marker=request.first("marker"),
                name=request.first("name"),
                tags=request.all("tags"),
                tags_any=request.all("tags-any"),
                predicate=filter_of(request),
            )
            fields = request.all("fields")
            listed = list_key(segment)
            body: dict[str, Any] = {listed: [self._shown(item, fields) for item in items]}
            following = next_url(request, items, more)
            if following:
                body[f"{listed}_links"] = links(following)
            return reply(200, body)

        return handle

    def _creator(self, collection: str, key: str, segment: str) -> Handler:
        def handle(request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
            listed = list_key(segment)
            if isinstance(request.body, Mapping) and isinstance(request.body.get(listed), list):
                created = [self.cloud.create(collection, dict(item)) for item in request.body[listed]]
                return reply(201, {listed: [self._shown(item) for item in created]})
            return reply(201, {key: self._shown(self.cloud.create(collection, request.member(key)))})

        return handle

    def _getter(self, collection: str, key: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(
                200, {key: self._shown(self.cloud.get(collection, params["id"]), request.all("fields"))}
            )

        return handle

    def _updater(self, collection: str, key: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(
                200, {key: self._shown(self.cloud.update(collection, params["id"], request.member(key)))}
            )

        return handle

    def _deleter(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.delete(collection, params["id"])
            return reply(204)

        return handle

    # tags
    def _tag_reader(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(200, {"tags": self.cloud.get(collection, params["id"]).get("tags", [])})

        return handle

    def _tags_replacer(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            tags = (request.body or {}).get("tags")
            if not isinstance(tags, list):
                raise BadRequest("Invalid input for tags: a list of strings is expected.")
            updated = self.cloud.act(collection, params["id"], "set_tags", {"tags": tags})
            return reply(200, {"tags": updated["tags"]})

        return handle

    def _tags_clearer(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.act(collection, params["id"], "set_tags", {"tags": []})
            return reply(204)

        return handle

    def _tag_checker(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            if params["tag"] not in self.cloud.get(collection, params["id"]).get("tags", []):
                raise ItemNotFound(f"Tag {params['tag']} could not be found for resource {params['id']}.")
            return reply(204)

        return handle

    def _tag_adder(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            tags = self.cloud.get(collection, params["id"]).get("tags", [])
            if params["tag"] not in tags:
                self.cloud.act(collection, params["id"], "set_tags", {"tags": [*tags, params["tag"]]})
            return reply(201)

        return handle

    def _tag_remover(self, collection: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            tags = self.cloud.get(collection, params["id"]).get("tags", [])
            if params["tag"] not in tags:
                raise ItemNotFound(f"Tag {params['tag']} could not be found for resource {params['id']}.")
            remaining = [tag for tag in tags if tag != params["tag"]]
            self.cloud.act(collection, params["id"], "set_tags", {"tags": remaining})
            return reply(204)

        return handle

    # router interfaces
    def _interface(self, action: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            body = request.body if isinstance(request.body, Mapping) else {}
            if not body.get("subnet_id") and not body.get("port_id"):
                raise BadRequest("Bad router request: Either subnet_id or port_id must be specified.")
            return reply(200, self.cloud.act("routers", params["id"], action, body))

        return handle

    def _subports(self, action: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            body = request.body if isinstance(request.body, Mapping) else {}
            return reply(200, self._shown(self.cloud.act("trunks", params["id"], action, body)))

        return handle

    def _subports_reader(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"sub_ports": self.cloud.get("trunks", params["id"])["sub_ports"]})

    @staticmethod
    def _shown(body: Body, fields: list[str] | None = None) -> Body:
        if fields:
            return {key: body.get(key) for key in fields}
        return {key: value for key, value in body.items() if key[0] != "_"}
