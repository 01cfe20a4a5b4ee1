"""Monitoring types served by the cloud providers (Monasca): OS::Monasca::Notification and
OS::Monasca::AlarmDefinition. Their schemas are data (`schemas/resource_types/telemetry.yaml`);
both are ready as soon as Monasca answers.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

NOTIFICATION = from_schema("OS::Monasca::Notification")
ALARM_DEFINITION = from_schema("OS::Monasca::AlarmDefinition")

TYPES = (NOTIFICATION, ALARM_DEFINITION)
