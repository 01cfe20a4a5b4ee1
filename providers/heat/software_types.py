"""Catalog entries of Heat's software orchestration types, as Heat's resource type reference has them.

Configs are immutable in Heat: any change makes a new config (a replacement). A deployment changes
in place when its config, input values, actions or name change (it runs again with deploy_action
UPDATE); a new server or signal transport replaces it. A deployment's attributes include the
outputs its config declares, whatever their names, so no attribute list can be complete here.
"""

from __future__ import annotations

from collections.abc import Mapping

from providers.catalog.declaring import replacing, resource_type, updatable
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

_CONFIG_COMMON = [
    replacing("group", "string", default="Heat::Ungrouped", description="The tool that applies the config."),
    replacing("inputs", "list", default=[], description="Declared inputs: name, type, default, ..."),
    replacing("outputs", "list", default=[], description="Declared outputs: name, type, error_output."),
    replacing("options", "map", default={}, description="Options for the configuration tool."),
]

_DEPLOYMENT_COMMON = [
    updatable("config", "string", description="The id of the config to deploy."),
    updatable("input_values", "map", default={}, description="Values of the config's inputs."),
    updatable("actions", "list", default=["CREATE", "UPDATE"], description="Actions that run it."),
    updatable("name", "string", description="Name of the derived config (orders a server's configs)."),
    replacing("signal_transport", "string", default="TEMP_URL_SIGNAL"),
]
_STRUCTURED_EXTRAS = [
    updatable("input_key", "string", default="get_input"),
    updatable("input_values_validate", "string", default="LAX"),
]
_DEPLOYMENT_ATTRIBUTES = ["deploy_stdout", "deploy_stderr", "deploy_status_code"]
_GROUP_ATTRIBUTES = ["deploy_stdouts", "deploy_stderrs", "deploy_status_codes"]

SOFTWARE_TYPES: Mapping[str, ResourceType] = {
    entry.name: entry
    for entry in (
        resource_type(SOFTWARE_CONFIG, [*_CONFIG_COMMON, replacing("config", "string")], ["config"]),
        resource_type(STRUCTURED_CONFIG, [*_CONFIG_COMMON, replacing("config", "map")], ["config"]),
        resource_type(
            MULTIPART_MIME,
            [replacing("parts", "list", default=[]), replacing("group", "string", default="Heat::Ungrouped")],
            ["config"],
        ),
        resource_type(CLOUD_CONFIG, [replacing("cloud_config", "map", default={})], ["config"]),
        resource_type(
            SOFTWARE_COMPONENT,
            [
                *_CONFIG_COMMON[1:],
                replacing("configs", "list", required=True, description="A config per action."),
            ],
            ["config"],
        ),
        resource_type(
            SOFTWARE_DEPLOYMENT,
            [*_DEPLOYMENT_COMMON, replacing("server", "string", required=True)],
            _DEPLOYMENT_ATTRIBUTES,
            asynchronous=True,
        ),
        resource_type(
            STRUCTURED_DEPLOYMENT,
            [*_DEPLOYMENT_COMMON, *_STRUCTURED_EXTRAS, replacing("server", "string", required=True)],
            _DEPLOYMENT_ATTRIBUTES,
            asynchronous=True,
        ),
        resource_type(
            SOFTWARE_DEPLOYMENT_GROUP,
            [*_DEPLOYMENT_COMMON, updatable("servers", "map", required=True)],
            _GROUP_ATTRIBUTES,
            asynchronous=True,
        ),
        resource_type(
            STRUCTURED_DEPLOYMENT_GROUP,
            [*_DEPLOYMENT_COMMON, *_STRUCTURED_EXTRAS, updatable("servers", "map", required=True)],
            _GROUP_ATTRIBUTES,
            asynchronous=True,
        ),
        resource_type(
            WAIT_CONDITION_HANDLE,
            [replacing("signal_transport", "string", default="TOKEN_SIGNAL")],
            ["token", "endpoint", "curl_cli", "signal"],
        ),
        resource_type(
            WAIT_CONDITION,
            [
                replacing("handle", "string", required=True),
                replacing("timeout", "number", required=True),
                updatable("count", "integer", default=1),
            ],
            ["data"],
            asynchronous=True,
        ),
    )
}
