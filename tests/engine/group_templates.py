"""Templates for group scenarios: a group of nodes, each a server on its own port with a volume."""

from __future__ import annotations

NODE = """
heat_template_version: 2018-08-31
parameters:
  index: {type: string}
  net: {type: string}
resources:
  port:
    type: OS::Neutron::Port
    properties: {network: {get_param: net}}
  server:
    type: OS::Nova::Server
    properties:
      name: {list_join: ["-", [node, {get_param: index}]]}
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      networks: [{port: {get_resource: port}}]
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1}
outputs:
  OS::stack_id: {value: {get_resource: server}}
  label: {value: {list_join: ["-", [node, {get_param: index}]]}}
"""

GROUP = """
heat_template_version: 2018-08-31
parameters:
  count: {type: number, default: 5}
  removed: {type: json, default: []}
  mode: {type: string, default: append}
resources:
  net:
    type: OS::Neutron::Net
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      removal_policies: [{resource_list: {get_param: removed}}]
      removal_policies_mode: {get_param: mode}
      resource_def:
        type: node.yaml
        properties: {index: "%index%", net: {get_resource: net}}
outputs:
  labels: {value: {get_attr: [nodes, label]}}
  refs_map: {value: {get_attr: [nodes, refs_map]}}
  removed: {value: {get_attr: [nodes, removed_rsrc_list]}}
"""


def server_names(live: list[dict[str, object]]) -> list[str]:
    return sorted(str(server["name"]) for server in live)
