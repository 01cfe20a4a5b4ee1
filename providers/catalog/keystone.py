"""Identity types served by the cloud providers (Keystone): domains, projects, users, groups, roles,
regions, services, endpoints, and the user and group role assignments.

Their schemas are data (`schemas/resource_types/keystone.yaml`); how their properties become
Keystone's request bodies is `identity_bodies`.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema
from providers.catalog.identity_bodies import ENTITIES, GRANT_TYPES

TYPES = tuple(from_schema(name) for name in (*ENTITIES, *GRANT_TYPES))
