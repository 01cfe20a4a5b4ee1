"""Workflow types served by the cloud providers: OS::Mistral::Workflow, OS::Mistral::CronTrigger
and OS::Mistral::ExternalResource.

Their schemas are data (`schemas/resource_types/services.yaml`): a workflow changes in place (a
new definition), a cron trigger is replaced by any change, as Mistral cannot change one; an
external resource is the execution of a workflow, so it is asynchronous.
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

WORKFLOW = from_schema("OS::Mistral::Workflow")
CRON_TRIGGER = from_schema("OS::Mistral::CronTrigger")
EXTERNAL_RESOURCE = from_schema("OS::Mistral::ExternalResource", asynchronous=True)

TYPES = (WORKFLOW, CRON_TRIGGER, EXTERNAL_RESOURCE)
