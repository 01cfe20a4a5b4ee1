"""Keystone v3, enough to log in: version discovery and password (or token) authentication that
answers with a token and a service catalog pointing every service back at this server, once per
region the cloud serves (each region at its own prefix, `region_paths`; identity at the root in all).

Any user name and password are accepted (the simulated cloud has one project and one user); a
token is a random string this server remembers until it stops.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from providers.simulated.errors import CloudError
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.region_paths import region_prefix
from providers.simulated.http.routing import Route
from providers.simulated.settings import REGION, CloudSettings

SERVICE = "keystone"
TOKEN_LIFETIME = timedelta(hours=12)
PROJECT_NAME = "demo"
USER_NAME = "demo"
DEFAULT_DOMAIN = {"id": "default", "name": "Default"}


class Unauthorized(CloudError):
    status = 401
    code = "unauthorized"


# service type -> (name, path under this server, with {project_id} filled in)
CATALOG_ENTRIES = (
    ("identity", "keystone", "/identity"),
    ("compute", "nova", "/compute/v2.1"),
    ("network", "neutron", "/networking"),
    ("block-storage", "cinder", "/volume/v3/{project_id}"),
    ("volumev3", "cinderv3", "/volume/v3/{project_id}"),
    ("image", "glance", "/image"),
    ("load-balancer", "octavia", "/load-balancer"),
    ("alarming", "aodh", "/alarming"),
    ("object-store", "swift", "/object-store/v1/AUTH_{project_id}"),
    ("dns", "designate", "/dns"),
    ("key-manager", "barbican", "/key-manager"),
    ("messaging", "zaqar", "/messaging"),
    ("container", "zun", "/container/v1"),
    ("reservation", "blazar", "/reservation/v1"),
    ("workflowv2", "mistral", "/workflow/v2"),
    ("container-infra", "magnum", "/container-infra"),
    ("monitoring", "monasca", "/monitoring"),
)


class Keystone:
    def __init__(self, settings: CloudSettings, regions: tuple[str, ...] = (REGION,)) -> None:
        self._settings = settings
        self._regions = regions
        self._tokens: set[str] = set()
        self._lock = threading.Lock()

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/identity", self.versions, SERVICE, public=True),
            Route.of("GET", "/identity/v3", self.version, SERVICE, public=True),
            Route.of("POST", "/identity/v3/auth/tokens", self.issue_token, SERVICE, public=True),
            Route.of("GET", "/identity/v3/auth/tokens", self.check_token, SERVICE, public=True),
        ]

    def knows(self, token: str | None) -> bool:
        with self._lock:
            return token is not None and token in self._tokens

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(300, {"versions": {"values": [self._version_body(request)]}})

    def version(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return reply(200, {"version": self._version_body(request)})

    def issue_token(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        identity = (request.body or {}).get("auth", {}).get("identity", {})
        methods = identity.get("methods") or []
        if "token" in methods and not self.knows(identity.get("token", {}).get("id")):
            raise Unauthorized("The request you have made requires authentication.")
        if not methods:
            raise Unauthorized("The request you have made requires authentication.")
        token = secrets.token_hex(16)
        with self._lock:
            self._tokens.add(token)
        return reply(201, {"token": self._token_body(request, methods)}, **{"X-Subject-Token": token})

    def check_token(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        subject = request.headers.get("x-subject-token")
        if not self.knows(subject):
            raise Unauthorized("The token is not valid.")
        return reply(
            200, {"token": self._token_body(request, ["token"])}, **{"X-Subject-Token": str(subject)}
        )

    def _version_body(self, request: ApiRequest) -> dict[str, object]:
        return {
            "id": "v3.14",
            "status": "stable",
            "updated": "2020-04-07T00:00:00Z",
            "links": [{"rel": "self", "href": request.url("/identity/v3/")}],
            "media-types": [
                {"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}
            ],
        }

    def _token_body(self, request: ApiRequest, methods: list[str]) -> dict[str, object]:
        now = datetime.now(UTC)
        project = self._settings.project_id
        return {
            "methods": methods,
            "issued_at": now.strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
            "expires_at": (now + TOKEN_LIFETIME).strftime("%Y-%m-%dT%H:%M:%S.000000Z"),
            "user": {"id": self._settings.user_id, "name": USER_NAME, "domain": DEFAULT_DOMAIN,
                     "password_expires_at": None},
            "project": {"id": project, "name": PROJECT_NAME, "domain": DEFAULT_DOMAIN},
            "roles": [{"id": "0d9a4e5a3f6b4c2e8d1f7a6b5c4d3e21", "name": "admin"},
                      {"id": "1e8b5f6a4d7c4b3a9e2f8b7c6d5e4f32", "name": "member"}],
            "is_domain": False,
            "catalog": [
                {
                    "type": service_type,
                    "name": name,
                    "id": f"{name}-service",
                    "endpoints": [
                        {
                            "id": f"{name}-{interface}" + ("" if region == REGION else f"-{region}"),
                            "interface": interface,
                            "region": region,
                            "region_id": region,
                            "url": request.url(
                                ("" if service_type == "identity" else region_prefix(region))
                                + path.format(project_id=project)
                            ),
                        }
                        for region in self._regions
                        for interface in ("public", "internal", "admin")
                    ],
                }
                for service_type, name, path in CATALOG_ENTRIES
            ],
        }  # fmt: skip
