"""Compute types served by the cloud providers: OS::Nova::Server, KeyPair, ServerGroup,
HostAggregate, Flavor, Quota, and FloatingIP with its association; and AWS::EC2::Instance, a server
under CloudFormation's names.

Their schemas are data (`schemas/resource_types/nova.yaml`); a server reaches readiness
asynchronously (BUILD, then ACTIVE).
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

SERVER = from_schema("OS::Nova::Server", asynchronous=True)
KEY_PAIR = from_schema("OS::Nova::KeyPair")
SERVER_GROUP = from_schema("OS::Nova::ServerGroup")
HOST_AGGREGATE = from_schema("OS::Nova::HostAggregate")
FLOATING_IP = from_schema("OS::Nova::FloatingIP")  # Heat serves both through Neutron
FLOATING_IP_ASSOCIATION = from_schema("OS::Nova::FloatingIPAssociation")
FLAVOR = from_schema("OS::Nova::Flavor")
QUOTA = from_schema("OS::Nova::Quota")
EC2_INSTANCE = from_schema("AWS::EC2::Instance", asynchronous=True)  # a server under CloudFormation's names

TYPES = (
    SERVER,
    KEY_PAIR,
    SERVER_GROUP,
    HOST_AGGREGATE,
    FLOATING_IP,
    FLOATING_IP_ASSOCIATION,
    FLAVOR,
    QUOTA,
    EC2_INSTANCE,
)
