"""Nova (compute v2.1) over HTTP: servers with actions, metadata, tags and volume attachments;
flavors; key pairs; server groups. Bodies are shown as the microversion asked for shapes them
(flavor embedded from 2.47, server group `policy` from 2.64); the maximum is 2.100.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable, Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.compute import SERVER_ACTIONS, interface_of
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http import microversions
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.nova_aggregates import AggregatesFace
from providers.simulated.http.nova_flavors import FlavorsFace
from providers.simulated.http.paging import links, next_url, page_limit
from providers.simulated.http.quota_faces import QuotaFace
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body
from providers.simulated.quota_sets import COMPUTE_QUOTAS

SERVICE = "nova"
PREFIX = "/compute/v2.1"
MIN_VERSION, MAX_VERSION = "2.1", "2.100"
LEGACY_HEADER = "X-OpenStack-Nova-API-Version"


def at_least(version: str, wanted: str) -> bool:
    return microversions.as_tuple(version) >= microversions.as_tuple(wanted)


class Nova:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        table: list[tuple[str, str, Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]]] = [
            ("GET", "/servers", self.list_servers),
            ("GET", "/servers/detail", self.list_servers),
            ("POST", "/servers", self.create_server),
            ("GET", "/servers/{id}", self.get_server),
            ("PUT", "/servers/{id}", self.update_server),
            ("DELETE", "/servers/{id}", self.delete_server),
            ("POST", "/servers/{id}/action", self.server_action),
            ("GET", "/servers/{id}/metadata", self.get_metadata),
            ("PUT", "/servers/{id}/metadata", self.replace_metadata),
            ("POST", "/servers/{id}/metadata", self.merge_metadata),
            ("GET", "/servers/{id}/tags", self.get_tags),
            ("PUT", "/servers/{id}/tags", self.replace_tags),
            ("DELETE", "/servers/{id}/tags", self.delete_tags),
            ("GET", "/servers/{id}/tags/{tag}", self.check_tag),
            ("PUT", "/servers/{id}/tags/{tag}", self.add_tag),
            ("DELETE", "/servers/{id}/tags/{tag}", self.remove_tag),
            ("GET", "/servers/{id}/os-volume_attachments", self.list_attachments),
            ("POST", "/servers/{id}/os-volume_attachments", self.attach),
            ("GET", "/servers/{id}/os-volume_attachments/{volume}", self.get_attachment),
            ("DELETE", "/servers/{id}/os-volume_attachments/{volume}", self.detach),
            ("GET", "/servers/{id}/os-interface", self.list_interfaces),
            ("POST", "/servers/{id}/os-interface", self.attach_interface),
            ("GET", "/servers/{id}/os-interface/{port}", self.get_interface),
            ("DELETE", "/servers/{id}/os-interface/{port}", self.detach_interface),
            ("GET", "/flavors", self.list_flavors),
            ("GET", "/flavors/detail", self.list_flavors),
            ("GET", "/flavors/{id}", self.get_flavor),
            ("GET", "/os-keypairs", self.list_keypairs),
            ("POST", "/os-keypairs", self.create_keypair),
            ("GET", "/os-keypairs/{id}", self.get_keypair),
            ("DELETE", "/os-keypairs/{id}", self.delete_keypair),
            ("GET", "/os-server-groups", self.list_server_groups),
            ("POST", "/os-server-groups", self.create_server_group),
            ("GET", "/os-server-groups/{id}", self.get_server_group),
            ("DELETE", "/os-server-groups/{id}", self.delete_server_group),
            *AggregatesFace(self.cloud).table(),
            *FlavorsFace(self.cloud, self._flavor).table(),
            *QuotaFace(self.cloud, COMPUTE_QUOTAS, "quota_set").versioned(),
        ]
        routes = [
            Route.of("GET", "/compute", self.versions, SERVICE, public=True),
            Route.of("GET", PREFIX, self.version, SERVICE, public=True),
        ]
        routes += [
            Route.of(method, PREFIX + path, self._versioned(handler), SERVICE)
            for method, path, handler in table
        ]
        return routes

    def _versioned(
        self, handler: Callable[[ApiRequest, Mapping[str, str], str], ApiResponse]
    ) -> Callable[[ApiRequest, Mapping[str, str]], ApiResponse]:
        def call(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            version = microversions.requested(
                request, "compute", LEGACY_HEADER.lower(), MIN_VERSION, MAX_VERSION
            )
            return microversions.stamped(handler(request, params, version), "compute", LEGACY_HEADER, version)

        return call

    # discovery
    def _version_body(self, request: ApiRequest) -> dict[str, Any]:
        return {
            "id": "v2.1",
            "status": "CURRENT",
            "version": MAX_VERSION,
            "min_version": MIN_VERSION,
            "updated": "2013-07-23T11:33:21Z",
            "links": [{"rel": "self", "href": request.url(PREFIX + "/")}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.compute+json;version=2.1"}
            ],
        }

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"versions": [self._version_body(request)]})

    def version(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"version": self._version_body(request)})

    # servers
    def list_servers(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        pattern = re.compile(request.first("name") or "")
        status = (request.first("status") or "").upper()
        excluded = set(request.all("not-tags"))

        def wanted(body: Body) -> bool:
            return (
                (not status or body["status"] == status)
                and (not excluded or not excluded & set(body["tags"]))
                and (pattern.pattern == "" or pattern.search(body["name"]) is not None)
            )

        items, more = self.cloud.page(
            "servers",
            limit=page_limit(request),
            marker=request.first("marker"),
            tags=request.all("tags"),
            tags_any=request.all("tags-any"),
            predicate=wanted,
            newest_first=True,  # Nova lists newest first
        )
        detailed = request.path.endswith("/detail")
        shown = [
            self._server(request, body, version) if detailed else self._summary(request, body)
            for body in items
        ]
        body: dict[str, Any] = {"servers": shown}
        following = next_url(request, items, more)
        if following:
            body["servers_links"] = links(following)
        return reply(200, body)

    def create_server(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        wanted = request.member("server")
        hints = (request.body or {}).get("os:scheduler_hints") or (request.body or {}).get(
            "OS-SCH-HNT:scheduler_hints"
        )
        if hints:
            wanted["os:scheduler_hints"] = hints
        created = self.cloud.create("servers", wanted)
        body = {
            "id": created["id"],
            "links": self._links(request, "servers", created["id"]),
            "OS-DCF:diskConfig": "MANUAL",
            "security_groups": created["security_groups"],
            "adminPass": wanted.get("adminPass") or secrets.token_urlsafe(9),
        }
        return reply(202, {"server": body}, Location=request.url(f"{PREFIX}/servers/{created['id']}"))

    def get_server(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"server": self._server(request, self.cloud.get("servers", params["id"]), version)})

    def update_server(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        updated = self.cloud.update("servers", params["id"], request.member("server"))
        return reply(200, {"server": self._server(request, updated, version)})

    def delete_server(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete("servers", params["id"])
        return reply(204)

    def server_action(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if not isinstance(request.body, Mapping) or len(request.body) != 1:
            raise BadRequest("Malformed request body: one action expected.")
        action, argument = next(iter(request.body.items()))
        if action not in SERVER_ACTIONS:
            raise BadRequest(f"There is no such action: {action}")
        result = self.cloud.act("servers", params["id"], action, argument or {})
        if action == "rebuild":
            return reply(202, {"server": self._server(request, result, version)})
        return reply(202)

    def get_metadata(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"metadata": self.cloud.get("servers", params["id"])["metadata"]})

    def replace_metadata(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        metadata = (request.body or {}).get("metadata") or {}
        updated = self.cloud.act("servers", params["id"], "set_metadata", {"metadata": metadata})
        return reply(200, {"metadata": updated["metadata"]})

    def merge_metadata(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        metadata = (request.body or {}).get("metadata") or {}
        updated = self.cloud.act("servers", params["id"], "merge_metadata", {"metadata": metadata})
        return reply(200, {"metadata": updated["metadata"]})

    def get_tags(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"tags": self.cloud.get("servers", params["id"])["tags"]})

    def replace_tags(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        tags = list((request.body or {}).get("tags") or [])
        return reply(
            200, {"tags": self.cloud.act("servers", params["id"], "set_tags", {"tags": tags})["tags"]}
        )

    def delete_tags(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.act("servers", params["id"], "set_tags", {"tags": []})
        return reply(204)

    def check_tag(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        if params["tag"] not in self.cloud.get("servers", params["id"])["tags"]:
            raise ItemNotFound(f"Tag {params['tag']} could not be found.")
        return reply(204)

    def add_tag(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        tags = self.cloud.get("servers", params["id"])["tags"]
        if params["tag"] in tags:
            return reply(204)
        self.cloud.act("servers", params["id"], "set_tags", {"tags": [*tags, params["tag"]]})
        return reply(201, Location=request.url(f"{PREFIX}/servers/{params['id']}/tags/{params['tag']}"))

    def remove_tag(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        tags = self.cloud.get("servers", params["id"])["tags"]
        if params["tag"] not in tags:
            raise ItemNotFound(f"Tag {params['tag']} could not be found.")
        self.cloud.act(
            "servers", params["id"], "set_tags", {"tags": [tag for tag in tags if tag != params["tag"]]}
        )
        return reply(204)

    # volume attachments and interfaces
    def list_attachments(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        server = self.cloud.get("servers", params["id"])
        volumes = self.cloud.list(
            "volumes", ids=[entry["id"] for entry in server["os-extended-volumes:volumes_attached"]]
        )
        attachments = [
            self._attachment(attachment, version)
            for volume in volumes
            for attachment in volume["attachments"]
            if attachment["server_id"] == server["id"]
        ]
        return reply(200, {"volumeAttachments": attachments})

    def attach(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        wanted = request.member("volumeAttachment")
        attachment = self.cloud.act("servers", params["id"], "attach_volume", wanted)
        return reply(200, {"volumeAttachment": self._shape_attachment(attachment, version)})

    def get_attachment(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        volume = self.cloud.get("volumes", params["volume"])
        for attachment in volume["attachments"]:
            if attachment["server_id"] == params["id"]:
                return reply(200, {"volumeAttachment": self._attachment(attachment, version)})
        raise ItemNotFound(f"Volume {params['volume']} is not attached to server {params['id']}.")

    def detach(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.act("servers", params["id"], "detach_volume", {"volumeId": params["volume"]})
        return reply(202)

    def list_interfaces(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        server = self.cloud.get("servers", params["id"])
        ports = self.cloud.list("ports", ids=server["_ports"])
        return reply(200, {"interfaceAttachments": [interface_of(port) for port in ports]})

    def attach_interface(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        attached = self.cloud.act(
            "servers", params["id"], "attach_interface", request.member("interfaceAttachment")
        )
        return reply(200, {"interfaceAttachment": attached})

    def get_interface(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        server = self.cloud.get("servers", params["id"])
        if params["port"] not in server["_ports"]:
            raise ItemNotFound(f"Port {params['port']} is not attached to server {params['id']}.")
        return reply(200, {"interfaceAttachment": interface_of(self.cloud.get("ports", params["port"]))})

    def detach_interface(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.act("servers", params["id"], "detach_interface", {"port_id": params["port"]})
        return reply(202)

    # flavors
    def list_flavors(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        items, more = self.cloud.page("flavors", limit=page_limit(request), marker=request.first("marker"))
        detailed = request.path.endswith("/detail")
        shown = [
            self._flavor(request, flavor, version) if detailed else self._summary(request, flavor, "flavors")
            for flavor in items
        ]
        body: dict[str, Any] = {"flavors": shown}
        following = next_url(request, items, more)
        if following:
            body["flavors_links"] = links(following)
        return reply(200, body)

    def get_flavor(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"flavor": self._flavor(request, self.cloud.get("flavors", params["id"]), version)})

    # key pairs
    def list_keypairs(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        items, more = self.cloud.page("keypairs", limit=page_limit(request), marker=request.first("marker"))
        body: dict[str, Any] = {
            "keypairs": [{"keypair": self._keypair(keypair, version)} for keypair in items]
        }
        following = next_url(request, items, more)
        if following:
            body["keypairs_links"] = links(following)
        return reply(200, body)

    def create_keypair(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        created = self.cloud.create("keypairs", request.member("keypair"))
        return reply(201 if at_least(version, "2.2") else 200, {"keypair": self._keypair(created, version)})

    def get_keypair(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(200, {"keypair": self._keypair(self.cloud.get("keypairs", params["id"]), version)})

    def delete_keypair(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        self.cloud.delete("keypairs", params["id"])
        return reply(204 if at_least(version, "2.2") else 202)

    # server groups
    def list_server_groups(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        """Nova pages server groups by `limit` and `offset` (no marker, no links)."""
        try:
            offset = max(0, int(request.first("offset") or 0))
        except ValueError:
            raise BadRequest(
                f"Invalid input for field/attribute offset: {request.first('offset')!r}"
            ) from None
        items = self.cloud.list("server_groups")[offset : offset + page_limit(request)]
        return reply(200, {"server_groups": [self._server_group(group, version) for group in items]})

    def create_server_group(self, request: ApiRequest, _: Mapping[str, str], version: str) -> ApiResponse:
        created = self.cloud.create("server_groups", request.member("server_group"))
        return reply(200, {"server_group": self._server_group(created, version)})

    def get_server_group(self, request: ApiRequest, params: Mapping[str, str], version: str) -> ApiResponse:
        return reply(
            200, {"server_group": self._server_group(self.cloud.get("server_groups", params["id"]), version)}
        )

    def delete_server_group(
        self, request: ApiRequest, params: Mapping[str, str], version: str
    ) -> ApiResponse:
        self.cloud.delete("server_groups", params["id"])
        return reply(204)

    # shapes
    def _links(self, request: ApiRequest, collection: str, item_id: str) -> list[dict[str, str]]:
        return [
            {"rel": "self", "href": request.url(f"{PREFIX}/{collection}/{item_id}")},
            {"rel": "bookmark", "href": request.url(f"/compute/{collection}/{item_id}")},
        ]

    def _summary(self, request: ApiRequest, body: Body, collection: str = "servers") -> Body:
        return {"id": body["id"], "name": body["name"], "links": self._links(request, collection, body["id"])}

    def _server(self, request: ApiRequest, body: Body, version: str) -> Body:
        shown = {key: value for key, value in body.items() if key[0] != "_"}
        shown["links"] = self._links(request, "servers", body["id"])
        if not at_least(version, "2.47"):
            shown["flavor"] = {
                "id": body["_flavor_id"],
                "links": self._links(request, "flavors", body["_flavor_id"]),
            }
        if at_least(version, "2.3"):
            # the extended attribute holds the user data as it was given (base64), as Nova shows it
            shown["OS-EXT-SRV-ATTR:user_data"] = body.get("_user_data")
        if body["status"] == "ERROR":
            shown["fault"] = {"code": 500, "message": "The server went to ERROR.", "created": body["updated"]}
        return shown

    def _flavor(self, request: ApiRequest, body: Body, version: str) -> Body:
        shown = {key: value for key, value in body.items() if key[0] != "_"}
        shown["links"] = self._links(request, "flavors", body["id"])
        if not at_least(version, "2.61"):
            shown.pop("extra_specs", None)
        if not at_least(version, "2.55"):
            shown.pop("description", None)
        return shown

    @staticmethod
    def _keypair(body: Body, version: str) -> Body:
        shown = dict(body)
        if not at_least(version, "2.2"):
            shown.pop("type", None)
        return shown

    @staticmethod
    def _server_group(body: Body, version: str) -> Body:
        shown = dict(body)
        if at_least(version, "2.64"):
            shown.pop("policies", None)
        else:
            shown.pop("policy", None)
            shown.pop("rules", None)
        return shown

    @staticmethod
    def _attachment(attachment: Body, version: str) -> Body:
        shaped = {
            "id": attachment["volume_id"],
            "volumeId": attachment["volume_id"],
            "serverId": attachment["server_id"],
            "device": attachment["device"],
            "attachment_id": attachment["attachment_id"],
            "tag": None,
            "delete_on_termination": False,
        }
        return Nova._shape_attachment(shaped, version)

    @staticmethod
    def _shape_attachment(attachment: Body, version: str) -> Body:
        shaped = dict(attachment)
        if not at_least(version, "2.89"):
            shaped.pop("attachment_id", None)
        if not at_least(version, "2.70"):
            shaped.pop("tag", None)
        if not at_least(version, "2.79"):
            shaped.pop("delete_on_termination", None)
        return shaped
