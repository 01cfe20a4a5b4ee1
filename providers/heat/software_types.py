"""Catalog entries of Heat's software orchestration types, read from their schemas
(`schemas/resource_types/heat.yaml`), as validate and plan read them.

Configs are immutable in Heat: any change makes a new config (a replacement). A deployment changes
in place when its config, input values or actions change (it runs again with deploy_action
UPDATE); a new server or signal transport replaces it. A deployment's attributes include the
outputs its config declares, whatever their names, so no attribute list can be complete here.
"""

from __future__ import annotations

from collections.abc import Mapping

from providers.catalog.declaring import from_schema
from providers.interface import ResourceType

SOFTWARE_CONFIG = "OS::Heat::SoftwareConfig"
STRUCTURED_CONFIG = "OS::Heat::StructuredConfig"
MULTIPART_MIME = "OS::Heat::MultipartMime"
CLOUD_CONFIG = "OS::Heat::CloudConfig"
SOFTWARE_COMPONENT = "OS::Heat::SoftwareComponent"
SOFTWARE_DEPLOYMENT = "OS::Heat::SoftwareDeployment"
STRUCTURED_DEPLOYMENT = "OS::Heat::StructuredDeployment"
SOFTWARE_DEPLOYMENT_GROUP = "OS::Heat::SoftwareDeploymentGroup"
STRUCTURED_DEPLOYMENT_GROUP = "OS::Heat::StructuredDeploymentGroup"
WAIT_CONDITION_HANDLE = "OS::Heat::WaitConditionHandle"
WAIT_CONDITION = "OS::Heat::WaitCondition"

CONFIG_TYPES = frozenset(
    {SOFTWARE_CONFIG, STRUCTURED_CONFIG, MULTIPART_MIME, CLOUD_CONFIG, SOFTWARE_COMPONENT}
)
DEPLOYMENT_TYPES = frozenset({SOFTWARE_DEPLOYMENT, STRUCTURED_DEPLOYMENT})
GROUP_TYPES = frozenset({SOFTWARE_DEPLOYMENT_GROUP, STRUCTURED_DEPLOYMENT_GROUP})

DEPLOY_ACTIONS = ("CREATE", "UPDATE", "DELETE", "SUSPEND", "RESUME")
SIGNAL_TRANSPORTS = ("CFN_SIGNAL", "TEMP_URL_SIGNAL", "HEAT_SIGNAL", "NO_SIGNAL", "ZAQAR_SIGNAL")

_WAITING_TYPES = DEPLOYMENT_TYPES | GROUP_TYPES | {WAIT_CONDITION}  # ready only once signalled

SOFTWARE_TYPES: Mapping[str, ResourceType] = {
    name: from_schema(name, asynchronous=name in _WAITING_TYPES)
    for name in sorted(CONFIG_TYPES | _WAITING_TYPES | {WAIT_CONDITION_HANDLE})
}
