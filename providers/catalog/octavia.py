"""Load balancing types served by the cloud providers: OS::Octavia::LoadBalancer, Listener, Pool,
PoolMember, HealthMonitor, L7Policy, L7Rule and Flavor.

Their schemas are data (`schemas/resource_types/octavia.yaml`). Every object of a load balancer's
tree is asynchronous (provisioning_status PENDING_* -> ACTIVE); a flavor is ready when made.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

TREE_TYPES = tuple(
    from_schema(f"OS::Octavia::{name}", asynchronous=True)
    for name in ("LoadBalancer", "Listener", "Pool", "PoolMember", "HealthMonitor", "L7Policy", "L7Rule")
)
FLAVOR = from_schema("OS::Octavia::Flavor")

TYPES = (*TREE_TYPES, FLAVOR)
