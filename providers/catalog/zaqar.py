"""Messaging types served by the cloud providers: OS::Zaqar::Queue.

Its schema is data (`schemas/resource_types/zaqar.yaml`); a queue's metadata changes in place.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

QUEUE = from_schema("OS::Zaqar::Queue")

TYPES = (QUEUE,)
