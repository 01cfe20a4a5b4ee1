"""Container types served by the cloud providers: OS::Zun::Container.

Its schema is data (`schemas/resource_types/services.yaml`); a container is Creating, then
Running, so the type is asynchronous: dependents wait for it to run.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

CONTAINER = from_schema("OS::Zun::Container", asynchronous=True)

TYPES = (CONTAINER,)
