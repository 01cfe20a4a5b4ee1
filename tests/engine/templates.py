"""Templates the scenarios commit, written as functions of what varies between commits."""

from __future__ import annotations

HEADER = "heat_template_version: 2018-08-31\n"

NETWORK = """
  net:
    type: OS::Neutron::Net
    properties: {name: net}
"""


def servers(names: list[str], *, user_data: str = "") -> str:
    """A network, and one port and server per name (the server named after its resource)."""
    body = [HEADER, "resources:", NETWORK]
    for name in names:
        body.append(
            f"""
  {name}_port:
    type: OS::Neutron::Port
    properties: {{network: {{get_resource: net}}}}
  {name}:
    type: OS::Nova::Server
    properties:
      name: {name}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data: "{user_data}"
      networks: [{{port: {{get_resource: {name}_port}}}}]
"""
        )
    return "".join(body)


def server_group(count: int) -> str:
    return (
        HEADER
        + f"""
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: {count}
      resource_def:
        type: OS::Nova::Server
        properties:
          name: member-%index%
          image: cirros-0.6.2-x86_64-disk
          flavor: m1.small
outputs:
  ids: {{value: {{get_attr: [group, refs]}}}}
"""
    )


LONE_SERVER_WITH_VOLUME = (
    HEADER
    + """
resources:
  server:
    type: OS::Nova::Server
    properties: {name: db, image: cirros-0.6.2-x86_64-disk, flavor: m1.small}
  data:
    type: OS::Cinder::Volume
    properties: {size: 1}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties:
      instance_uuid: {get_resource: server}
      volume_id: {get_resource: data}
  label:
    type: OS::Heat::Value
    properties: {value: {get_resource: server}}
"""
)
