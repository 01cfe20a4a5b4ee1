"""Reservation types served by the cloud providers: OS::Blazar::Host and OS::Blazar::Lease.

Their schemas are data (`schemas/resource_types/services.yaml`); every property replaces them.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

HOST = from_schema("OS::Blazar::Host")
LEASE = from_schema("OS::Blazar::Lease")

TYPES = (HOST, LEASE)
