"""Workflow types served by the cloud providers: OS::Mistral::Workflow and OS::Mistral::CronTrigger.

Their schemas are data (`schemas/resource_types/services.yaml`): a workflow changes in place (a
new definition), a cron trigger is replaced by any change, as Mistral cannot change one.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

WORKFLOW = from_schema("OS::Mistral::Workflow")
CRON_TRIGGER = from_schema("OS::Mistral::CronTrigger")

TYPES = (WORKFLOW, CRON_TRIGGER)
