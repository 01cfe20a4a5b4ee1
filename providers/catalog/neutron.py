"""Networking types served by the cloud providers: OS::Neutron::Net, Subnet, Port, Router,
RouterInterface, SecurityGroup, SecurityGroupRule, FloatingIP, FloatingIPAssociation, Trunk, ProviderNet,
QoSPolicy and its rules, SubnetPool, AddressScope and Quota.

Their schemas are data (`schemas/resource_types/neutron.yaml`).
"""

from __future__ import annotations

from providers.catalog.declaring import from_schema

NET = from_schema("OS::Neutron::Net")
SUBNET = from_schema("OS::Neutron::Subnet")
PORT = from_schema("OS::Neutron::Port")
ROUTER = from_schema("OS::Neutron::Router")
ROUTER_INTERFACE = from_schema("OS::Neutron::RouterInterface")
SECURITY_GROUP = from_schema("OS::Neutron::SecurityGroup")
SECURITY_GROUP_RULE = from_schema("OS::Neutron::SecurityGroupRule")
FLOATING_IP = from_schema("OS::Neutron::FloatingIP")
FLOATING_IP_ASSOCIATION = from_schema("OS::Neutron::FloatingIPAssociation")
TRUNK = from_schema("OS::Neutron::Trunk")
PROVIDER_NET = from_schema("OS::Neutron::ProviderNet")
QOS_POLICY = from_schema("OS::Neutron::QoSPolicy")
QOS_BANDWIDTH_LIMIT_RULE = from_schema("OS::Neutron::QoSBandwidthLimitRule")
QOS_DSCP_MARKING_RULE = from_schema("OS::Neutron::QoSDscpMarkingRule")
QOS_MINIMUM_BANDWIDTH_RULE = from_schema("OS::Neutron::QoSMinimumBandwidthRule")
SUBNET_POOL = from_schema("OS::Neutron::SubnetPool")
ADDRESS_SCOPE = from_schema("OS::Neutron::AddressScope")
QUOTA = from_schema("OS::Neutron::Quota")
EC2_SECURITY_GROUP = from_schema("AWS::EC2::SecurityGroup")  # a Neutron group under CloudFormation's names

TYPES = (
    NET,
    SUBNET,
    PORT,
    ROUTER,
    ROUTER_INTERFACE,
    SECURITY_GROUP,
    SECURITY_GROUP_RULE,
    FLOATING_IP,
    FLOATING_IP_ASSOCIATION,
    TRUNK,
    PROVIDER_NET,
    QOS_POLICY,
    QOS_BANDWIDTH_LIMIT_RULE,
    QOS_DSCP_MARKING_RULE,
    QOS_MINIMUM_BANDWIDTH_RULE,
    SUBNET_POOL,
    ADDRESS_SCOPE,
    QUOTA,
    EC2_SECURITY_GROUP,
)
