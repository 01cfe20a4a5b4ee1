"""The simulated Octavia, as the cloud registers it: its collections, their deletes, its seed.

Deletes are actions rather than removals, because an Octavia DELETE is asynchronous: the object
turns PENDING_DELETE and goes when the change is done (see `lb_lifecycle`). The batch member update
is an action on the pool (`lb_member_batch`).

Limits, on purpose: no amphorae and no traffic, so a monitored member is ONLINE whatever its
address; listener and pool protocols are not matched against each other; TLS container refs,
availability zones, providers and QoS policies are recorded, never checked; no
statistics, status tree, failover or quotas API; flavor profiles are seeded, not managed.
"""

from __future__ import annotations

from collections.abc import Mapping

from providers.simulated.lb_l7 import L7Policies, L7Rules
from providers.simulated.lb_lifecycle import DeleteAction, TreeObject, deleting
from providers.simulated.lb_listeners import Listeners, Pools
from providers.simulated.lb_member_batch import update_members
from providers.simulated.lb_members import HealthMonitors, Members
from providers.simulated.load_balancers import (
    LoadBalancerFlavorProfiles,
    LoadBalancerFlavors,
    LoadBalancers,
    seed_flavor_profile,
)

DELETE_ACTION = "octavia_delete"
MEMBER_BATCH_ACTION = "update_members"  # on a pool: Octavia's batch member update
TREE_BEHAVIOURS = (
    LoadBalancers(),
    Listeners(),
    Pools(),
    Members(),
    HealthMonitors(),
    L7Policies(),
    L7Rules(),
)
TREE: tuple[TreeObject, ...] = TREE_BEHAVIOURS
BEHAVIOURS = (*TREE_BEHAVIOURS, LoadBalancerFlavors(), LoadBalancerFlavorProfiles())
DELETE_ACTIONS: Mapping[tuple[str, str], DeleteAction] = {
    (behaviour.collection, DELETE_ACTION): deleting(behaviour) for behaviour in TREE
}

__all__ = [
    "BEHAVIOURS",
    "DELETE_ACTION",
    "DELETE_ACTIONS",
    "MEMBER_BATCH_ACTION",
    "seed_flavor_profile",
    "update_members",
]
