"""The templates of `bench.kube_cluster`: a Kubernetes cluster shaped like Magnum's driver templates.

`kubecluster.yaml` holds the cluster's network (net, subnet, router to the public network), its
security groups, the API load balancer (load balancer, listener, pool, health monitor, its VIP's
floating IP) and two resource groups: `kube_masters` of `kubemaster.yaml`, `kube_minions` of
`kubeminion.yaml`. A node is a port on the cluster's subnet, a server booted with SOFTWARE_CONFIG
on it, a floating IP, a Docker volume and its attachment, and a script deployment run by the
node's agent; a master is also a member of the API pool, as Magnum's `api_pool_member` is.
"""

from __future__ import annotations

from typing import Any

import yaml

HOT_VERSION = "2018-08-31"


def _node(*, master: bool) -> dict[str, Any]:
    """A node template (master or minion): what Magnum's kubemaster.yaml / kubeminion.yaml make."""
    role = "master" if master else "minion"
    parameters: dict[str, Any] = {
        name: {"type": "string"}
        for name in ("name", "image", "flavor", "fixed_network", "fixed_subnet", "external_network")
    }
    parameters["secgroup"] = {"type": "string"}
    parameters["docker_volume_size"] = {"type": "number", "default": 10}
    parameters["script_seconds"] = {"type": "number", "default": 1}
    resources: dict[str, Any] = {
        f"{role}_config": {
            "type": "OS::Heat::SoftwareConfig",
            "properties": {
                "group": "script",
                "config": {
                    "str_replace": {
                        "template": f"#!/bin/sh\nsleep SECONDS\necho {role} configured\n",
                        "params": {"SECONDS": {"get_param": "script_seconds"}},
                    }
                },
            },
        },
        f"kube_{role}_eth0": {
            "type": "OS::Neutron::Port",
            "properties": {
                "network": {"get_param": "fixed_network"},
                "fixed_ips": [{"subnet": {"get_param": "fixed_subnet"}}],
                "security_groups": [{"get_param": "secgroup"}],
            },
        },
        f"kube_{role}": {
            "type": "OS::Nova::Server",
            "properties": {
                "name": {"get_param": "name"},
                "image": {"get_param": "image"},
                "flavor": {"get_param": "flavor"},
                "user_data_format": "SOFTWARE_CONFIG",
                "networks": [{"port": {"get_resource": f"kube_{role}_eth0"}}],
            },
        },
        f"kube_{role}_floating": {
            "type": "OS::Neutron::FloatingIP",
            "properties": {
                "floating_network": {"get_param": "external_network"},
                "port_id": {"get_resource": f"kube_{role}_eth0"},
            },
        },
        "docker_volume": {
            "type": "OS::Cinder::Volume",
            "properties": {"size": {"get_param": "docker_volume_size"}},
        },
        "docker_volume_attach": {
            "type": "OS::Cinder::VolumeAttachment",
            "properties": {
                "instance_uuid": {"get_resource": f"kube_{role}"},
                "volume_id": {"get_resource": "docker_volume"},
                "mountpoint": "/dev/vdb",
            },
        },
        f"{role}_config_deployment": {
            "type": "OS::Heat::SoftwareDeployment",
            "properties": {
                "config": {"get_resource": f"{role}_config"},
                "server": {"get_resource": f"kube_{role}"},
            },
        },
    }
    outputs: dict[str, Any] = {
        f"kube_{role}_ip": {"value": {"get_attr": [f"kube_{role}_eth0", "fixed_ips", 0, "ip_address"]}},
        f"kube_{role}_external_ip": {"value": {"get_attr": [f"kube_{role}_floating", "floating_ip_address"]}},
    }
    if master:
        parameters["api_pool_id"] = {"type": "string"}
        resources["api_pool_member"] = {
            "type": "OS::Octavia::PoolMember",
            "properties": {
                "pool": {"get_param": "api_pool_id"},
                "address": {"get_attr": ["kube_master_eth0", "fixed_ips", 0, "ip_address"]},
                "subnet": {"get_param": "fixed_subnet"},
                "protocol_port": 6443,
            },
        }
    return {
        "heat_template_version": HOT_VERSION,
        "parameters": parameters,
        "resources": resources,
        "outputs": outputs,
    }


def _group(count: str, template: str, name: str, secgroup: str, extra: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "OS::Heat::ResourceGroup",
        "depends_on": ["router_interface"],
        "properties": {
            "count": {"get_param": count},
            "resource_def": {
                "type": template,
                "properties": {
                    "name": {"list_join": ["-", [{"get_param": "cluster_name"}, name, "%index%"]]},
                    "image": {"get_param": "image"},
                    "flavor": {"get_param": "flavor"},
                    "fixed_network": {"get_resource": "fixed_network"},
                    "fixed_subnet": {"get_resource": "fixed_subnet"},
                    "external_network": {"get_param": "external_network"},
                    "secgroup": {"get_resource": secgroup},
                    "script_seconds": {"get_param": "script_seconds"},
                    **extra,
                },
            },
        },
    }


def _security_group(ports: list[int]) -> dict[str, Any]:
    rules: list[dict[str, Any]] = [{"protocol": "icmp"}]
    rules += [{"protocol": "tcp", "port_range_min": port, "port_range_max": port} for port in ports]
    return {"type": "OS::Neutron::SecurityGroup", "properties": {"rules": rules}}


def cluster() -> dict[str, Any]:
    """The cluster: network, security groups, API load balancer, masters and minions."""
    string = {"type": "string"}
    return {
        "heat_template_version": HOT_VERSION,
        "parameters": {
            "cluster_name": {**string, "default": "k8s"},
            "image": {**string, "default": "cirros-0.6.2-x86_64-disk"},
            "flavor": {**string, "default": "m1.small"},
            "external_network": {**string, "default": "public"},
            "fixed_network_cidr": {**string, "default": "10.0.0.0/16"},
            "number_of_masters": {"type": "number", "default": 3},
            "number_of_minions": {"type": "number", "default": 1},
            "script_seconds": {"type": "number", "default": 1},
        },
        "resources": {
            "fixed_network": {"type": "OS::Neutron::Net"},
            "fixed_subnet": {
                "type": "OS::Neutron::Subnet",
                "properties": {
                    "cidr": {"get_param": "fixed_network_cidr"},
                    "network": {"get_resource": "fixed_network"},
                    "dns_nameservers": ["8.8.8.8"],
                },
            },
            "extrouter": {
                "type": "OS::Neutron::Router",
                "properties": {"external_gateway_info": {"network": {"get_param": "external_network"}}},
            },
            "router_interface": {
                "type": "OS::Neutron::RouterInterface",
                "properties": {
                    "router_id": {"get_resource": "extrouter"},
                    "subnet": {"get_resource": "fixed_subnet"},
                },
            },
            "secgroup_kube_master": _security_group([22, 6443, 2379, 2380, 10250]),
            "secgroup_kube_minion": _security_group([22, 10250, 30000]),
            "api_lb": {
                "type": "OS::Octavia::LoadBalancer",
                "properties": {"vip_subnet": {"get_resource": "fixed_subnet"}},
            },
            "api_listener": {
                "type": "OS::Octavia::Listener",
                "properties": {
                    "loadbalancer": {"get_resource": "api_lb"},
                    "protocol": "TCP",
                    "protocol_port": 6443,
                },
            },
            "api_pool": {
                "type": "OS::Octavia::Pool",
                "properties": {
                    "listener": {"get_resource": "api_listener"},
                    "lb_algorithm": "ROUND_ROBIN",
                    "protocol": "TCP",
                },
            },
            "api_monitor": {
                "type": "OS::Octavia::HealthMonitor",
                "properties": {
                    "pool": {"get_resource": "api_pool"},
                    "type": "TCP",
                    "delay": 5,
                    "max_retries": 5,
                    "timeout": 5,
                },
            },
            "api_address_floating": {
                "type": "OS::Neutron::FloatingIP",
                "depends_on": ["router_interface"],
                "properties": {
                    "floating_network": {"get_param": "external_network"},
                    "port_id": {"get_attr": ["api_lb", "vip_port_id"]},
                },
            },
            "kube_masters": _group(
                "number_of_masters",
                "kubemaster.yaml",
                "master",
                "secgroup_kube_master",
                {"api_pool_id": {"get_resource": "api_pool"}},
            ),
            "kube_minions": _group(
                "number_of_minions", "kubeminion.yaml", "minion", "secgroup_kube_minion", {}
            ),
        },
        "outputs": {
            "api_address": {"value": {"get_attr": ["api_address_floating", "floating_ip_address"]}},
            "kube_masters": {"value": {"get_attr": ["kube_masters", "kube_master_external_ip"]}},
            "kube_minions": {"value": {"get_attr": ["kube_minions", "kube_minion_external_ip"]}},
        },
    }


def files() -> dict[str, str]:
    """The repository's files: name -> YAML text."""
    return {
        "kubecluster.yaml": yaml.safe_dump(cluster(), sort_keys=False),
        "kubemaster.yaml": yaml.safe_dump(_node(master=True), sort_keys=False),
        "kubeminion.yaml": yaml.safe_dump(_node(master=False), sort_keys=False),
    }
