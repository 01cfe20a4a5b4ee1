"""The chaos workload: a repository of a few stacks and what the cloud must hold at each revision.

Four stacks share one network:

- `network`: a network and its subnet (wide enough for every port), wired to the others by
  `from_stack`.
- `fleet-a` and `fleet-b`: a ResourceGroup of template resources (`Chaos::Node`), each member a
  port, a server on that port and a volume.
- `storage`: plain volumes and ports at the top level, so markers of stacks with and without a
  nesting path are both exercised.

Every cloud resource is named after the template resource that made it (`fleet-a-17-port`,
`storage-vol-3`), so one name is one template resource: two cloud resources with one name are a
duplicate, whatever marker they carry. Revision 1 is the change committed mid-run: `fleet-a`
shrinks by a fifth, `fleet-b` grows by a fifth, `storage` loses a tenth of its volumes and gains
a tenth more ports. `network` is untouched.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

IMAGE = "cirros-0.6.2-x86_64-disk"
FLAVOR = "m1.tiny"
SUBNET_CIDR = "10.64.0.0/16"
NETWORK_NAME = "chaos-net"
KINDS = ("servers", "ports", "volumes")
ROOT_STACKS = ("network", "fleet-a", "fleet-b", "storage")
CHANGED_BY_REVISION_1 = frozenset({"fleet-a", "fleet-b", "storage"})

NETWORK_TEMPLATE = f"""heat_template_version: 2018-08-31
description: The network every port of the chaos workload is on.
resources:
  net:
    type: OS::Neutron::Net
    properties:
      name: {NETWORK_NAME}
  subnet:
    type: OS::Neutron::Subnet
    properties:
      name: {NETWORK_NAME}-subnet
      network: {{get_resource: net}}
      cidr: {SUBNET_CIDR}
outputs:
  net_id:
    value: {{get_resource: net}}
"""

FLEET_TEMPLATE = """heat_template_version: 2018-08-31
description: A group of nodes, each a port, a server and a volume.
parameters:
  prefix: {type: string}
  count: {type: number}
  net_id: {type: string}
resources:
  nodes:
    type: OS::Heat::ResourceGroup
    properties:
      count: {get_param: count}
      resource_def:
        type: Chaos::Node
        properties:
          prefix: {get_param: prefix}
          index: "%index%"
          net_id: {get_param: net_id}
"""

NODE_TEMPLATE = f"""heat_template_version: 2018-08-31
description: One node of a fleet.
parameters:
  prefix: {{type: string}}
  index: {{type: string}}
  net_id: {{type: string}}
resources:
  port:
    type: OS::Neutron::Port
    properties:
      name: {{list_join: ["-", [{{get_param: prefix}}, {{get_param: index}}, port]]}}
      network: {{get_param: net_id}}
  server:
    type: OS::Nova::Server
    properties:
      name: {{list_join: ["-", [{{get_param: prefix}}, {{get_param: index}}]]}}
      image: {IMAGE}
      flavor: {FLAVOR}
      networks:
        - port: {{get_resource: port}}
  volume:
    type: OS::Cinder::Volume
    properties:
      name: {{list_join: ["-", [{{get_param: prefix}}, {{get_param: index}}, vol]]}}
      size: 1
"""

ENVIRONMENT = """resource_registry:
  Chaos::Node: ../stacks/node.yaml
"""


@dataclass(frozen=True)
class Sizes:
    """How many members each fleet has and how many volumes and ports `storage` holds."""

    fleet_a: int
    fleet_b: int
    storage_volumes: int
    storage_ports: int

    @classmethod
    def at(cls, members: int, revision: int) -> Sizes:
        """The sizes of revision 0 (every count `members`) or of revision 1 (the change)."""
        if revision == 0:
            return cls(members, members, members, members)
        return cls(
            fleet_a=members - members // 5,
            fleet_b=members + members // 5,
            storage_volumes=members - members // 10,
            storage_ports=members + members // 10,
        )


def storage_template(sizes: Sizes) -> str:
    lines = [
        "heat_template_version: 2018-08-31",
        "description: Volumes and ports at the top level of a stack.",
        "parameters:",
        "  net_id: {type: string}",
        "resources:",
    ]
    for index in range(sizes.storage_volumes):
        lines += [
            f"  vol_{index}:",
            "    type: OS::Cinder::Volume",
            f"    properties: {{name: storage-vol-{index}, size: 1}}",
        ]
    for index in range(sizes.storage_ports):
        lines += [
            f"  port_{index}:",
            "    type: OS::Neutron::Port",
            f"    properties: {{name: storage-port-{index}, network: {{get_param: net_id}}}}",
        ]
    return "\n".join(lines) + "\n"


def repository_config(sizes: Sizes, cloud: str) -> str:
    net_id = "{from_stack: network, output: net_id}"
    return f"""branch: main
defaults:
  cloud: {cloud}
  observe_interval: 30
stacks:
  network:
    template: stacks/network.yaml
  fleet-a:
    template: stacks/fleet.yaml
    environment: [environments/nodes.yaml]
    parameters: {{prefix: fleet-a, count: {sizes.fleet_a}, net_id: {net_id}}}
  fleet-b:
    template: stacks/fleet.yaml
    environment: [environments/nodes.yaml]
    parameters: {{prefix: fleet-b, count: {sizes.fleet_b}, net_id: {net_id}}}
  storage:
    template: stacks/storage.yaml
    parameters: {{net_id: {net_id}}}
"""


def repository_files(sizes: Sizes, cloud: str) -> dict[str, str]:
    """Every file of the repository at these sizes, by path."""
    return {
        "reconciler.yaml": repository_config(sizes, cloud),
        "stacks/network.yaml": NETWORK_TEMPLATE,
        "stacks/fleet.yaml": FLEET_TEMPLATE,
        "stacks/node.yaml": NODE_TEMPLATE,
        "stacks/storage.yaml": storage_template(sizes),
        "environments/nodes.yaml": ENVIRONMENT,
    }


def wanted_names(sizes: Sizes) -> Mapping[str, frozenset[str]]:
    """The names the cloud must hold at these sizes, per kind (servers, ports, volumes)."""
    fleets = [("fleet-a", sizes.fleet_a), ("fleet-b", sizes.fleet_b)]
    members = [f"{prefix}-{index}" for prefix, count in fleets for index in range(count)]
    return {
        "servers": frozenset(members),
        "ports": frozenset(
            [f"{member}-port" for member in members]
            + [f"storage-port-{index}" for index in range(sizes.storage_ports)]
        ),
        "volumes": frozenset(
            [f"{member}-vol" for member in members]
            + [f"storage-vol-{index}" for index in range(sizes.storage_volumes)]
        ),
    }


def resource_count(sizes: Sizes) -> int:
    """Cloud resources of the kinds audited (servers, ports, volumes) at these sizes."""
    return sum(len(names) for names in wanted_names(sizes).values())
