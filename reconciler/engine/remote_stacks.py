"""OS::Heat::Stack's `context`: where Heat would build the nested stack, checked against where it is built.

A nested stack is built on its parent's cloud, with the parent's credentials. A `context` that asks
for another region (`region_name`) or other credentials (`credential_secret_id`) is refused, naming
the resource, the key and why, rather than built where the template did not ask. `ca_cert` and
`insecure` only say how Heat reaches a remote Heat's endpoint: the nested stack uses its cloud's
connection as clouds.yaml configures it, so they change nothing about where it is built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from reconciler.templates.evaluation import UNKNOWN

REMOTE_STACK = "OS::Heat::Stack"
CONTEXT = "context"


def context_refusal(resource: str, context: Any, cloud: str, region: str | None) -> str | None:
    """Why the nested stack of `resource` cannot be built on `cloud` (in `region`) as its `context`
    asks (None: it can). A value not known yet is not refused: it is checked once resolved."""
    if not isinstance(context, Mapping):
        return None
    where = f"{REMOTE_STACK} {resource}"
    if context.get("credential_secret_id") not in (None, ""):
        return (
            f"{where}: context.credential_secret_id is not served: "
            f"a nested stack is built on its parent's cloud {cloud!r} with that cloud's credentials"
        )
    wanted = context.get("region_name")
    if wanted in (None, "") or wanted is UNKNOWN or not isinstance(wanted, str):
        return None
    if region is None:
        return (
            f"{where}: context.region_name {wanted!r} cannot be checked: cloud {cloud!r} names no region "
            f"(set region_name in its clouds.yaml entry)"
        )
    if wanted != region:
        return (
            f"{where}: context.region_name {wanted!r} is not the region of cloud {cloud!r} ({region}): "
            f"a nested stack is built on its parent's cloud"
        )
    return None
