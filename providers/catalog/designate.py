"""DNS types served by the cloud providers: OS::Designate::Zone and RecordSet, and the v1 names
Domain and Record, served by the same v2 API.

Their schemas are data (`schemas/resource_types/designate.yaml`); every change reaches readiness
asynchronously (PENDING, then ACTIVE).
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

ZONE = from_schema("OS::Designate::Zone", asynchronous=True)
RECORD_SET = from_schema("OS::Designate::RecordSet", asynchronous=True)
DOMAIN = from_schema("OS::Designate::Domain", asynchronous=True)
RECORD = from_schema("OS::Designate::Record", asynchronous=True)

TYPES = (ZONE, RECORD_SET, DOMAIN, RECORD)
