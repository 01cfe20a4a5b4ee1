"""Messaging types served by the cloud providers: OS::Zaqar::Queue, OS::Zaqar::Subscription and
OS::Zaqar::MistralTrigger.

Their schemas are data (`schemas/resource_types/zaqar.yaml`, `services.yaml`); a queue's metadata
changes in place, and so does every property of a subscription.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

QUEUE = from_schema("OS::Zaqar::Queue")
SUBSCRIPTION = from_schema("OS::Zaqar::Subscription")
MISTRAL_TRIGGER = from_schema("OS::Zaqar::MistralTrigger")

TYPES = (QUEUE, SUBSCRIPTION, MISTRAL_TRIGGER)
