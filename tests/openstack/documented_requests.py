"""The request table of docs/openstack-api.md, read as data: which calls the provider may send.

Each row allows one method on one path template (`{id}` is one segment, `{object}` a Swift object
name, "/" and all, `{collection}` each of the
Neutron collections) with a set of body keys. A key with listed keys under it (`server` with
`server.name`) is a wrapper: only those may be sent inside it; any other key's value is data
(`metadata`, `os:scheduler_hints`) whose own keys are the template's. Keys written
`x.* (value_specs)` only document that Heat's value_specs pass through; they widen nothing, so a
scenario without value_specs is held to the listed keys.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from providers.openstack.request_log import SentRequest
from tests.openstack.conftest import CloudUnderTest

DOCUMENT = Path(__file__).resolve().parents[2] / "docs" / "openstack-api.md"
NEUTRON_COLLECTIONS = {
    "address-scopes": "address_scope",
    "networks": "network",
    "subnets": "subnet",
    "ports": "port",
    "routers": "router",
    "security-groups": "security_group",
    "security-group-rules": "security_group_rule",
    "floatingips": "floatingip",
    "trunks": "trunk",
    "qos/policies": "policy",
    "subnetpools": "subnetpool",
}
QOS_RULES = {
    f"{kind}_rules": f"{kind}_rule" for kind in ("bandwidth_limit", "dscp_marking", "minimum_bandwidth")
}
SERVICES = (
    "compute",
    "network",
    "block-storage",
    "image",
    "load-balancer",
    "object-store",
    "dns",
    "key-manager",
    "messaging",
)
IDENTITY_ENTITIES = {
    "domains": "domain",
    "projects": "project",
    "users": "user",
    "groups": "group",
    "roles": "role",
    "regions": "region",
    "services": "service",
    "endpoints": "endpoint",
}
DOCUMENTED_SERVICES = (
    *SERVICES,
    "alarming",
    "identity",
    "container",
    "reservation",
    "workflow",
    "container-infra",
    "monitoring",
)


@dataclass(frozen=True)
class DocumentedCall:
    service: str
    method: str
    path: re.Pattern[str]
    body_keys: frozenset[str]
    text: str

    def allows(self, service: str, sent: SentRequest, relative_path: str) -> bool:
        return (
            service == self.service
            and sent.method == self.method
            and self.path.fullmatch(relative_path) is not None
            and all(self.allows_key(key) for key in sent.body_keys)
        )

    def allows_key(self, key: str) -> bool:
        """A documented key, or a key inside a documented value that is data, not a wrapper."""
        if key in self.body_keys:
            return True
        outer, dot, _ = key.partition(".")
        wrapper = any(documented.startswith(outer + ".") for documented in self.body_keys)
        return bool(dot) and outer in self.body_keys and not wrapper


def documented_calls(document: Path = DOCUMENT) -> list[DocumentedCall]:
    rows = [_cells(line) for line in document.read_text(encoding="utf-8").splitlines()]
    table = [cells for cells in rows if cells and cells[0] in DOCUMENTED_SERVICES]
    creates: dict[str, frozenset[str]] = {}
    for cells in table:
        if cells[1] == "POST":  # two rows may create in one collection (networks, provider networks)
            creates[cells[2]] = creates.get(cells[2], frozenset()) | _keys(cells[3])
    calls = []
    for service, method, path, keys, *_ in table:
        for collection, singular in _expansions(path):
            expanded_path = (
                path.replace("{collection}", collection)
                .replace("{entities}", collection)
                .replace("{rules}", collection)
            )
            body_keys = {key.replace("{singular}", singular) for key in _keys(keys)}
            if f"{singular}.*" in body_keys:
                body_keys |= creates.get(f"/{collection}", frozenset())
            pattern = re.compile(
                re.escape(expanded_path)
                .replace(re.escape("{id}"), "[^/]+")
                .replace(re.escape("{object}"), ".+")
            )
            calls.append(DocumentedCall(service, method, pattern, frozenset(body_keys), f"{method} {path}"))
    return calls


def _cells(line: str) -> list[str]:
    if not line.startswith("|"):
        return []
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _keys(cell: str) -> frozenset[str]:
    return frozenset(key.strip() for key in cell.split(",") if key.strip() and "(value_specs)" not in key)


def _expansions(path: str) -> list[tuple[str, str]]:
    if "{collection}" in path:
        return list(NEUTRON_COLLECTIONS.items())
    if "{entities}" in path:
        return list(IDENTITY_ENTITIES.items())
    if "{rules}" in path:
        return list(QOS_RULES.items())
    return [("", "")]


def undocumented_requests(sim: CloudUnderTest) -> list[str]:
    """Every request `sim`'s provider sent that no row of the table allows, as readable lines."""
    prefixes = service_prefixes(sim)
    calls = documented_calls()
    found = []
    for sent in sim.log.requests:
        service, relative = service_of(sent, prefixes)
        if service is None or relative in ("", "/"):
            continue  # identity and version discovery: the SDK's, not the provider's
        if not any(call.allows(service, sent, relative) for call in calls):
            found.append(f"{service} {sent.method} {relative} {sorted(sent.body_keys)}")
    return found


def service_prefixes(sim: CloudUnderTest) -> dict[str, str]:
    connection = sim.provider.connection
    proxies = {
        "compute": connection.compute,
        "network": connection.network,
        "block-storage": connection.block_storage,
        "image": connection.image,
        "load-balancer": connection.load_balancer,
        "object-store": connection.object_store,
        "dns": connection.dns,
        "key-manager": connection.key_manager,
        "messaging": connection.message,
        "container-infra": connection.container_infrastructure_management,
        "monitoring": connection.monitoring,
    }
    return {service: urlsplit(proxy.get_endpoint()).path.rstrip("/") for service, proxy in proxies.items()}


def service_of(sent: SentRequest, prefixes: dict[str, str]) -> tuple[str | None, str]:
    best: tuple[str | None, str] = (None, sent.path)
    best_length = -1
    for service, prefix in prefixes.items():
        if (sent.path.startswith(prefix + "/") or sent.path == prefix) and len(prefix) > best_length:
            best, best_length = (service, sent.path[len(prefix) :]), len(prefix)
    return best
