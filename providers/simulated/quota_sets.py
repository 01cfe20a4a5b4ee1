"""Per-project quotas of Nova, Neutron and Cinder, as an admin sets them: one item per project and
service (its id is the project's id), holding only the limits set; the service's defaults fill the
rest when shown, and deleting the item reverts the project to them.

Limits are integers of -1 (unlimited) or more; a key the service does not know is refused, as each
service refuses it. These quotas are recorded, not enforced: the cloud's own quotas are its
settings' per-collection counts (see `settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.errors import BadRequest
from providers.simulated.inventory import Body
from providers.simulated.world import Building, CloudWorld

COMPUTE_DEFAULTS: Mapping[str, int] = {
    "cores": 20, "instances": 10, "ram": 51200, "key_pairs": 100, "metadata_items": 128,
    "injected_files": 5, "injected_file_content_bytes": 10240, "injected_file_path_bytes": 255,
    "server_groups": 10, "server_group_members": 10, "fixed_ips": -1, "floating_ips": 10,
    "security_groups": 10, "security_group_rules": 20,
}  # fmt: skip
COMPUTE_NETWORK_LIMITS = frozenset({"fixed_ips", "floating_ips", "security_groups", "security_group_rules"})
NETWORK_DEFAULTS: Mapping[str, int] = {
    "network": 100, "subnet": 100, "subnetpool": -1, "port": 500, "router": 10, "floatingip": 50,
    "security_group": 10, "security_group_rule": 100, "rbac_policy": 10,
}  # fmt: skip
VOLUME_DEFAULTS: Mapping[str, int] = {
    "volumes": 10, "snapshots": 10, "gigabytes": 1000, "backups": 10, "backup_gigabytes": 1000,
    "groups": 10, "per_volume_gigabytes": -1,
}  # fmt: skip


class QuotaSets:
    quota_status = 403
    building: Building | None = None

    def __init__(self, collection: str, defaults: Mapping[str, int]) -> None:
        self.collection = collection
        self.defaults = defaults

    def create(self, world: CloudWorld, request: Mapping[str, Any]) -> Body:
        limits = {key: value for key, value in request.items() if key != "id"}
        return {"id": str(request["id"]), **self._checked(limits)}

    def update(self, world: CloudWorld, body: Body, request: Mapping[str, Any]) -> Body:
        return {**body, **self._checked(request)}

    def delete(self, world: CloudWorld, body: Body) -> None:
        return None

    def shown(self, project_id: str, body: Body | None) -> Body:
        """The project's limits: those set, and the defaults for the rest."""
        return {**self.defaults, **(body or {}), "id": project_id}

    def _checked(self, limits: Mapping[str, Any]) -> dict[str, int]:
        unknown = sorted(set(limits) - set(self.defaults))
        if unknown:
            raise BadRequest(f"Bad quota request: unrecognized quota(s) {', '.join(unknown)}.")
        for key, value in limits.items():
            if isinstance(value, bool) or not isinstance(value, int) or value < -1:
                raise BadRequest(
                    f"Invalid input for {key}. Reason: '{value}' is not an integer of -1 or more."
                )
        return dict(limits)


COMPUTE_QUOTAS = QuotaSets("compute_quotas", COMPUTE_DEFAULTS)
NETWORK_QUOTAS = QuotaSets("network_quotas", NETWORK_DEFAULTS)
VOLUME_QUOTAS = QuotaSets("volume_quotas", VOLUME_DEFAULTS)
BEHAVIOURS = (COMPUTE_QUOTAS, NETWORK_QUOTAS, VOLUME_QUOTAS)
