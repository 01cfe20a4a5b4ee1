"""OS::Nova::Quota, OS::Neutron::Quota and OS::Cinder::Quota: a project's limits in one service.

| type | call | body key |
|---|---|---|
| OS::Nova::Quota | `PUT /os-quota-sets/{project_id}` (compute, microversion 2.35) | quota_set |
| OS::Neutron::Quota | `PUT /quotas/{project_id}` (network) | quota |
| OS::Cinder::Quota | `PUT /os-quota-sets/{project_id}` (block-storage) | quota_set |

A quota is the project's: its physical id is the project's id (the template names the project by
name or id), setting it is idempotent, so there is no marker to find, and deleting it reverts the
project to the service's defaults, as Heat does. Only the limits the template gives are sent. Nova's
quota calls use microversion 2.35, the last one taking the network limits Heat's schema has.
Observing is one `GET` per quota: no service lists every project's limits.
"""

from __future__ import annotations

import contextlib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from typing import Any

from providers.interface import LiveResource, LiveStatus, Marker, NotFound
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.json_api import JsonApi

NOVA_QUOTA_MICROVERSION = "2.35"


@dataclass(frozen=True)
class QuotaKind:
    path: str  # "/os-quota-sets" or "/quotas"
    key: str  # "quota_set" or "quota"
    limits: tuple[str, ...]


KINDS: Mapping[str, QuotaKind] = {
    "OS::Nova::Quota": QuotaKind(
        "/os-quota-sets",
        "quota_set",
        (
            "cores",
            "fixed_ips",
            "floating_ips",
            "instances",
            "injected_files",
            "injected_file_content_bytes",
            "injected_file_path_bytes",
            "key_pairs",
            "metadata_items",
            "ram",
            "security_groups",
            "security_group_rules",
            "server_groups",
            "server_group_members",
        ),
    ),
    "OS::Neutron::Quota": QuotaKind(
        "/quotas",
        "quota",
        (
            "subnet",
            "network",
            "floatingip",
            "security_group_rule",
            "security_group",
            "router",
            "port",
            "subnetpool",
            "rbac_policy",
        ),
    ),
    "OS::Cinder::Quota": QuotaKind(
        "/os-quota-sets", "quota_set", ("gigabytes", "volumes", "snapshots", "backups", "backup_gigabytes")
    ),
}


@dataclass(frozen=True)
class QuotaHandler:
    apis: CloudApis
    type_name: str

    @property
    def _kind(self) -> QuotaKind:
        return KINDS[self.type_name]

    @property
    def _api(self) -> JsonApi:
        if self.type_name == "OS::Nova::Quota":
            return replace(self.apis.compute, microversion=NOVA_QUOTA_MICROVERSION)
        return self.apis.network if self.type_name == "OS::Neutron::Quota" else self.apis.block_storage

    def create(self, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        project = self.apis.identity_names.id_of("project", str(properties["project"]))
        return self._set(project, properties)

    def update(
        self, physical_id: str, properties: Mapping[str, Any], changed: frozenset[str]
    ) -> LiveResource:
        return self._set(physical_id, properties)

    def delete(self, physical_id: str) -> None:
        with contextlib.suppress(NotFound):  # a project on the defaults already
            self._api.delete(f"{self._kind.path}/{physical_id}")

    def observe(self, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        found = {}
        for project in physical_ids:
            with contextlib.suppress(NotFound):
                found[project] = self._live(
                    project, self._api.get(f"{self._kind.path}/{project}")[self._kind.key]
                )
        return found

    def find_by_marker(self, marker: Marker) -> LiveResource | None:
        return None  # setting a quota again is harmless: there is nothing to adopt

    def _set(self, project: str, properties: Mapping[str, Any]) -> LiveResource:
        limits = {name: properties[name] for name in self._kind.limits if properties.get(name) is not None}
        shown = self._api.put(f"{self._kind.path}/{project}", {self._kind.key: limits})[self._kind.key]
        return self._live(project, shown)

    def _live(self, project: str, shown: Mapping[str, Any]) -> LiveResource:
        properties = {
            "project": project,
            **{name: shown.get(name) for name in self._kind.limits if name in shown},
        }
        return LiveResource(project, self.type_name, LiveStatus.READY, properties, {"show": dict(shown)})
