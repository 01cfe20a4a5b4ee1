"""Image types served by the cloud providers: OS::Glance::WebImage.

Its schema is data (`schemas/resource_types/glance.yaml`); an image reaches readiness
asynchronously (queued, importing, then active).
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

WEB_IMAGE = from_schema("OS::Glance::WebImage", asynchronous=True)

TYPES = (WEB_IMAGE,)
