"""The handlers of the Mistral, Zaqar subscription, Zun and Blazar types, by type name.

openstacksdk has no proxy methods for Mistral's workflows, Zun or Blazar, so their handlers speak
JSON through the session and catalog entry of the SDK's service (`workflow`, whose catalog type is
also `workflowv2`; `application-container`, also `container`; `reservation`), as every other
handler here does.
"""

from __future__ import annotations

from collections.abc import Callable

from providers.catalog.subscription_bodies import MISTRAL_TRIGGER_TYPE, SUBSCRIPTION_TYPE
from providers.interface import Permanent
from providers.openstack.blazar import HostHandler, LeaseHandler
from providers.openstack.cloud_apis import CloudApis
from providers.openstack.json_api import JsonApi
from providers.openstack.mistral_cron_trigger import CronTriggerHandler
from providers.openstack.mistral_external_resource import ExternalResourceHandler
from providers.openstack.mistral_workflow import WorkflowHandler
from providers.openstack.type_handler import TypeHandler
from providers.openstack.zaqar_queue import QueueHandler
from providers.openstack.zaqar_subscription import SubscriptionHandler
from providers.openstack.zun_container import ContainerHandler


def required(api: JsonApi | None, name: str) -> JsonApi:
    if api is None:
        raise Permanent(f"the cloud has no {name} service")
    return api


WORKFLOW_SERVICE_HANDLERS: dict[str, Callable[[CloudApis], TypeHandler]] = {
    "OS::Blazar::Host": lambda apis: HostHandler(required(apis.reservation, "reservation")),
    "OS::Blazar::Lease": lambda apis: LeaseHandler(required(apis.reservation, "reservation")),
    "OS::Mistral::CronTrigger": lambda apis: CronTriggerHandler(required(apis.workflow, "workflow")),
    "OS::Mistral::ExternalResource": lambda apis: ExternalResourceHandler(
        required(apis.workflow, "workflow")
    ),
    "OS::Mistral::Workflow": lambda apis: WorkflowHandler(required(apis.workflow, "workflow")),
    "OS::Zaqar::MistralTrigger": lambda apis: SubscriptionHandler(
        QueueHandler(required(apis.messaging, "messaging")), MISTRAL_TRIGGER_TYPE, apis.workflow
    ),
    "OS::Zaqar::Subscription": lambda apis: SubscriptionHandler(
        QueueHandler(required(apis.messaging, "messaging")), SUBSCRIPTION_TYPE
    ),
    "OS::Zun::Container": lambda apis: ContainerHandler(apis, required(apis.container, "container")),
}
