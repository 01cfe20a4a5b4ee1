"""Container infrastructure types served by the cloud providers (Magnum): OS::Magnum::ClusterTemplate
and OS::Magnum::Cluster. Their schemas are data (`schemas/resource_types/services.yaml`); a cluster
reaches readiness asynchronously (CREATE_IN_PROGRESS, then CREATE_COMPLETE; UPDATE_IN_PROGRESS,
then UPDATE_COMPLETE after a change of its node count).
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

CLUSTER_TEMPLATE = from_schema("OS::Magnum::ClusterTemplate")
CLUSTER = from_schema("OS::Magnum::Cluster", asynchronous=True)

TYPES = (CLUSTER_TEMPLATE, CLUSTER)
