"""OS::Heat::Stack's `context`: where Heat builds the nested stack, and whether it can be built there.

A nested stack is built on its parent's cloud, with the parent's credentials. A `context` naming
another region of that cloud (`region_name`) builds it there, as Heat does: same Keystone, that
region's endpoints (`cloud_addresses`). A region the cloud's catalog does not list is refused
before anything is built, naming the resource, the region and the regions the cloud has; so are
other credentials (`credential_secret_id`). `ca_cert` and `insecure` only say how Heat reaches a
remote Heat's endpoint: the nested stack uses its cloud's connection as clouds.yaml configures it,
so they change nothing about where it is built.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from reconciler.engine.cloud_addresses import in_region
from reconciler.templates.evaluation import UNKNOWN

REMOTE_STACK = "OS::Heat::Stack"
CONTEXT = "context"


def wanted_region(context: Any) -> str | None:
    """The region a resolved `context` names (None: none, or not known yet)."""
    if not isinstance(context, Mapping):
        return None
    wanted = context.get("region_name")
    if wanted in (None, "") or wanted is UNKNOWN or not isinstance(wanted, str):
        return None
    return wanted


def context_refusal(
    resource: str, context: Any, cloud: str, region: str | None, regions: Collection[str] | None
) -> str | None:
    """Why the nested stack of `resource` cannot be built on `cloud` (working in `region`, its catalog
    listing `regions`) as its `context` asks (None: it can). A value not known yet is not refused:
    it is checked once resolved."""
    if not isinstance(context, Mapping):
        return None
    where = f"{REMOTE_STACK} {resource}"
    if context.get("credential_secret_id") not in (None, ""):
        return (
            f"{where}: context.credential_secret_id is not served: it names credentials of another cloud "
            f"held in Barbican, and a nested stack is built with its parent's clouds.yaml entry "
            f"({cloud!r}); give that cloud an entry of its own and a stack of its own in reconciler.yaml"
        )
    wanted = wanted_region(context)
    if wanted is None or wanted == region:
        return None
    if not regions:
        return (
            f"{where}: context.region_name {wanted!r} cannot be checked: the catalog of cloud {cloud!r} "
            f"lists no regions"
        )
    if wanted not in regions:
        return (
            f"{where}: context.region_name {wanted!r} is not a region of cloud {cloud!r} "
            f"(it has {', '.join(sorted(regions))})"
        )
    return None


def nested_cloud(context: Any, cloud: str, region: str | None) -> str:
    """Where the nested stack of a resource with `context` is built, its parent being on `cloud`
    (working in `region`): the parent's cloud, or another region of it."""
    wanted = wanted_region(context)
    return cloud if wanted is None or wanted == region else in_region(cloud, wanted)
