"""Compute types: OS::Nova::Server, OS::Nova::KeyPair and OS::Nova::ServerGroup.

Server updates follow Heat's default policies: a new flavor resizes in place (flavor_update_policy
RESIZE), a new image rebuilds in place (image_update_policy REBUILD), and new user_data replaces
the server (user_data_update_policy REPLACE), so user_data is recorded here as replace-on-change.
"""

from __future__ import annotations

from providers.catalog.declaring import immutable, replacing, resource_type, updatable

SERVER = resource_type(
    "OS::Nova::Server",
    [
        updatable("name", "string", description="Server name."),
        updatable("flavor", "string", required=True, description="Flavor name or id."),
        updatable("flavor_update_policy", "string", default="RESIZE"),
        updatable("image", "string", description="Image name or id (or boot from volume)."),
        updatable("image_update_policy", "string", default="REBUILD"),
        updatable("key_name", "string", description="Key pair name."),
        updatable("admin_pass", "string", description="Administrator password (hidden)."),
        replacing("availability_zone", "string"),
        replacing("block_device_mapping", "list"),
        replacing("block_device_mapping_v2", "list"),
        replacing("config_drive", "boolean"),
        replacing("diskConfig", "string"),
        updatable("metadata", "map", default={}),
        updatable("networks", "list", default=[], description="Networks, ports and fixed IPs."),
        replacing("personality", "map", default={}),
        replacing("reservation_id", "string"),
        replacing("scheduler_hints", "map"),
        updatable("security_groups", "list", default=[]),
        updatable("software_config_transport", "string", default="POLL_SERVER_CFN"),
        updatable("deployment_swift_data", "map", default={}),
        updatable("tags", "list"),
        replacing("user_data", "string", default=""),
        replacing("user_data_format", "string", default="HEAT_CFNTOOLS"),
        updatable("user_data_update_policy", "string", default="REPLACE"),
    ],
    [
        "accessIPv4",
        "accessIPv6",
        "addresses",
        "console_urls",
        "first_address",
        "instance_name",
        "name",
        "networks",
        "os_collect_config",
        "tags",
    ],
    asynchronous=True,
)

KEY_PAIR = resource_type(
    "OS::Nova::KeyPair",
    [
        replacing("name", "string", required=True),
        replacing("public_key", "string"),
        replacing("save_private_key", "boolean", default=False),
        replacing("type", "string", description="ssh or x509."),
        replacing("user", "string"),
    ],
    ["private_key", "public_key"],
)

SERVER_GROUP = resource_type(
    "OS::Nova::ServerGroup",
    [
        replacing("name", "string"),
        replacing("policies", "list", default=["anti-affinity"]),
        immutable("rules", "map"),
    ],
    [],
)

TYPES = (SERVER, KEY_PAIR, SERVER_GROUP)
