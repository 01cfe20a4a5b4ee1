"""Object storage types served by the cloud providers: OS::Swift::Container.

Its schema is data (`schemas/resource_types/swift.yaml`); Heat changes nothing of a container in
place, so every changed property replaces it.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

CONTAINER = from_schema("OS::Swift::Container")

TYPES = (CONTAINER,)
