"""Keystone's admin API (identity v3) over HTTP: the collections of `providers.simulated.identity`,
group membership and role grants, under `/identity/v3`.

- `GET|POST /{collection}`, `GET|PATCH|DELETE /{collection}/{id}` for domains, projects, users,
  groups, roles, regions, services and endpoints (bodies wrapped in the singular: `{"project": ...}`;
  lists filtered by `name`, `domain_id`, `parent_id`, `type`, `service_id`, `interface`,
  `region_id`, and projects by `tags` (every tag) and `tags-any`)
- `GET|PUT /projects/{id}/tags`
- `PUT|DELETE /groups/{group}/users/{user}`, `GET /users/{user}/groups`, `GET /groups/{group}/users`
- `PUT|GET|DELETE /{projects|domains}/{scope}/{users|groups}/{actor}/roles/{role}` (204; GET 204 or 404)
- `GET /role_assignments` (filters `user.id`, `group.id`, `role.id`, `scope.project.id`,
  `scope.domain.id`)

Keystone does not page its lists; neither does this. A user's password is never shown.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Route
from providers.simulated.identity import assignment_id
from providers.simulated.inventory import Body

SERVICE = "keystone"
PREFIX = "/identity/v3"
COLLECTIONS = {
    "domains": "domain",
    "projects": "project",
    "users": "user",
    "groups": "group",
    "roles": "role",
    "regions": "region",
    "services": "service",
    "endpoints": "endpoint",
}
FILTERS = ("name", "domain_id", "parent_id", "type", "service_id", "interface", "region_id", "enabled")
ASSIGNMENT_FILTERS = {"user.id": ("user", "id"), "group.id": ("group", "id"), "role.id": ("role", "id")}


class KeystoneAdmin:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        routes: list[Route] = []
        for collection, singular in COLLECTIONS.items():
            routes += [
                Route.of("GET", f"{PREFIX}/{collection}", self._lister(collection), SERVICE),
                Route.of("POST", f"{PREFIX}/{collection}", self._creator(collection, singular), SERVICE),
                Route.of("GET", f"{PREFIX}/{collection}/{{id}}", self._shower(collection, singular), SERVICE),
                Route.of(
                    "PATCH", f"{PREFIX}/{collection}/{{id}}", self._updater(collection, singular), SERVICE
                ),
                Route.of("DELETE", f"{PREFIX}/{collection}/{{id}}", self._deleter(collection), SERVICE),
            ]
        routes += [
            Route.of("GET", f"{PREFIX}/projects/{{id}}/tags", self.get_tags, SERVICE),
            Route.of("PUT", f"{PREFIX}/projects/{{id}}/tags", self.replace_tags, SERVICE),
            Route.of("PUT", f"{PREFIX}/groups/{{group}}/users/{{user}}", self.add_member, SERVICE),
            Route.of("DELETE", f"{PREFIX}/groups/{{group}}/users/{{user}}", self.remove_member, SERVICE),
            Route.of("GET", f"{PREFIX}/users/{{user}}/groups", self.groups_of_user, SERVICE),
            Route.of("GET", f"{PREFIX}/groups/{{group}}/users", self.users_of_group, SERVICE),
            Route.of("GET", f"{PREFIX}/role_assignments", self.list_assignments, SERVICE),
        ]
        for scope in ("projects", "domains"):
            for actor in ("users", "groups"):
                path = f"{PREFIX}/{scope}/{{scope}}/{actor}/{{actor}}/roles/{{role}}"
                routes += [
                    Route.of("PUT", path, self._granter(scope, actor), SERVICE),
                    Route.of("GET", path, self._grant_checker(scope, actor), SERVICE),
                    Route.of("DELETE", path, self._revoker(scope, actor), SERVICE),
                ]
        return routes

    # the entity collections
    def _lister(self, collection: str) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
            wanted = {key: request.first(key) for key in FILTERS if request.first(key) is not None}
            every_tag, any_tag = set(request.all("tags")), set(request.all("tags-any"))
            bodies = [
                body
                for body in self.cloud.list(collection)
                if all(str(body.get(key)).lower() == str(value).lower() for key, value in wanted.items())
                and every_tag <= set(body.get("tags") or ())
                and (not any_tag or any_tag & set(body.get("tags") or ()))
            ]
            return reply(
                200,
                {
                    collection: [self._shown(request, collection, body) for body in bodies],
                    "links": {"self": request.url(request.path), "next": None, "previous": None},
                },
            )

        return answer

    def _creator(
        self, collection: str, singular: str
    ) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
            body = self.cloud.create(collection, request.member(singular))
            return reply(201, {singular: self._shown(request, collection, body)})

        return answer

    def _shower(
        self, collection: str, singular: str
    ) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(
                200,
                {singular: self._shown(request, collection, self._get(collection, singular, params["id"]))},
            )

        return answer

    def _updater(
        self, collection: str, singular: str
    ) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._get(collection, singular, params["id"])
            body = self.cloud.update(collection, params["id"], request.member(singular))
            return reply(200, {singular: self._shown(request, collection, body)})

        return answer

    def _deleter(self, collection: str) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._get(collection, COLLECTIONS[collection], params["id"])
            self.cloud.delete(collection, params["id"])
            return reply(204)

        return answer

    def _get(self, collection: str, singular: str, item_id: str) -> Body:
        try:
            return self.cloud.get(collection, item_id)
        except ItemNotFound as error:
            raise ItemNotFound(f"Could not find {singular}: {item_id}.") from error

    @staticmethod
    def _shown(request: ApiRequest, collection: str, body: Body) -> Body:
        shown = {key: value for key, value in body.items() if not key.startswith("_")}
        shown["links"] = {"self": request.url(f"{PREFIX}/{collection}/{body['id']}")}
        return shown

    # project tags
    def get_tags(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"tags": self._get("projects", "project", params["id"]).get("tags") or []})

    def replace_tags(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self._get("projects", "project", params["id"])
        tags = list((request.body or {}).get("tags") or []) if isinstance(request.body, Mapping) else []
        body = self.cloud.update("projects", params["id"], {"tags": tags})
        return reply(200, {"tags": body["tags"]})

    # group membership
    def add_member(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.create("group_memberships", {"group_id": params["group"], "user_id": params["user"]})
        return reply(204)

    def remove_member(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        try:
            self.cloud.delete("group_memberships", f"{params['group']}:{params['user']}")
        except ItemNotFound as error:
            raise ItemNotFound(
                f"Could not find user, {params['user']}, in group, {params['group']}."
            ) from error
        return reply(204)

    def groups_of_user(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self._get("users", "user", params["user"])
        members = self.cloud.list("group_memberships", where={"user_id": params["user"]})
        groups = self.cloud.list("groups", ids=[member["group_id"] for member in members])
        return reply(200, {"groups": [self._shown(request, "groups", body) for body in groups], "links": {}})

    def users_of_group(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self._get("groups", "group", params["group"])
        members = self.cloud.list("group_memberships", where={"group_id": params["group"]})
        users = self.cloud.list("users", ids=[member["user_id"] for member in members])
        return reply(200, {"users": [self._shown(request, "users", body) for body in users], "links": {}})

    # role grants
    def _granter(self, scope: str, actor: str) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.create("role_assignments", grant_request(scope, actor, params))
            return reply(204)

        return answer

    def _grant_checker(
        self, scope: str, actor: str
    ) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._grant(scope, actor, params)
            return reply(204)

        return answer

    def _revoker(self, scope: str, actor: str) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def answer(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.delete("role_assignments", self._grant(scope, actor, params)["id"])
            return reply(204)

        return answer

    def _grant(self, scope: str, actor: str, params: Mapping[str, str]) -> Body:
        grant = grant_request(scope, actor, params)
        key = assignment_id(
            grant["scope_kind"], grant["scope_id"], grant["actor_kind"], grant["actor_id"], grant["role_id"]
        )
        try:
            return self.cloud.get("role_assignments", key)
        except ItemNotFound as error:
            raise ItemNotFound(
                f"Could not find role assignment: role {params['role']} for {grant['actor_kind']} "
                f"{params['actor']} on {grant['scope_kind']} {params['scope']}."
            ) from error

    def list_assignments(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        def wanted(body: Body) -> bool:
            for name, (outer, inner) in ASSIGNMENT_FILTERS.items():
                value = request.first(name)
                if value is not None and (body.get(outer) or {}).get(inner) != value:
                    return False
            for kind in ("project", "domain"):
                value = request.first(f"scope.{kind}.id")
                if value is not None and (body["scope"].get(kind) or {}).get("id") != value:
                    return False
            return True

        shown = [
            {key: value for key, value in body.items() if key != "id"}
            for body in self.cloud.list("role_assignments")
            if wanted(body)
        ]
        return reply(
            200, {"role_assignments": shown, "links": {"self": request.url(request.path), "next": None}}
        )


def grant_request(scope: str, actor: str, params: Mapping[str, str]) -> dict[str, Any]:
    return {
        "scope_kind": scope.rstrip("s"),
        "scope_id": params["scope"],
        "actor_kind": actor.rstrip("s"),
        "actor_id": params["actor"],
        "role_id": params["role"],
    }
