"""The shared type catalog says what Heat's resource type reference says."""

from __future__ import annotations

import pytest

from providers.catalog import CATALOG
from providers.interface import UpdateRule

EXPECTED_TYPES = {
    "OS::Nova::Server",
    "OS::Nova::KeyPair",
    "OS::Nova::ServerGroup",
    "OS::Neutron::Net",
    "OS::Neutron::Subnet",
    "OS::Neutron::Port",
    "OS::Neutron::Router",
    "OS::Neutron::RouterInterface",
    "OS::Neutron::SecurityGroup",
    "OS::Neutron::SecurityGroupRule",
    "OS::Neutron::FloatingIP",
    "OS::Neutron::FloatingIPAssociation",
    "OS::Cinder::Volume",
    "OS::Cinder::VolumeAttachment",
    "OS::Cinder::VolumeType",
    "OS::Cinder::EncryptedVolumeType",
    "OS::Cinder::QoSSpecs",
    "OS::Cinder::QoSAssociation",
    "OS::Neutron::Trunk",
    "OS::Neutron::ProviderNet",
    "OS::Neutron::QoSPolicy",
    "OS::Neutron::QoSBandwidthLimitRule",
    "OS::Neutron::QoSDscpMarkingRule",
    "OS::Neutron::QoSMinimumBandwidthRule",
    "OS::Neutron::SubnetPool",
    "OS::Neutron::AddressScope",
    "OS::Nova::HostAggregate",
    "OS::Nova::Flavor",
    "OS::Nova::Quota",
    "OS::Neutron::Quota",
    "OS::Cinder::Quota",
    "OS::Nova::FloatingIP",
    "OS::Nova::FloatingIPAssociation",
    "AWS::EC2::SecurityGroup",
    "AWS::EC2::Instance",
    *(f"OS::Octavia::{name}" for name in ("LoadBalancer", "Listener", "Pool", "PoolMember", "HealthMonitor")),
    *(f"OS::Octavia::{name}" for name in ("L7Policy", "L7Rule", "Flavor")),
    "OS::Aodh::Alarm",
    "OS::Aodh::GnocchiResourcesAlarm",
    "OS::Aodh::GnocchiAggregationByMetricsAlarm",
    "OS::Aodh::GnocchiAggregationByResourcesAlarm",
    "OS::Aodh::EventAlarm",
    "OS::Aodh::CompositeAlarm",
    "OS::Keystone::Domain",
    "OS::Keystone::Project",
    "OS::Keystone::User",
    "OS::Keystone::Group",
    "OS::Keystone::Role",
    "OS::Keystone::Region",
    "OS::Keystone::Service",
    "OS::Keystone::Endpoint",
    "OS::Keystone::UserRoleAssignment",
    "OS::Keystone::GroupRoleAssignment",
    "OS::Swift::Container",
    "OS::Glance::WebImage",
    "OS::Designate::Zone",
    "OS::Designate::RecordSet",
    "OS::Designate::Domain",
    "OS::Designate::Record",
    "OS::Barbican::Secret",
    "OS::Barbican::Order",
    "OS::Barbican::GenericContainer",
    "OS::Barbican::CertificateContainer",
    "OS::Barbican::RSAContainer",
    "OS::Zaqar::Queue",
    "OS::Zaqar::Subscription",
    "OS::Zaqar::MistralTrigger",
    "OS::Mistral::Workflow",
    "OS::Mistral::CronTrigger",
    "OS::Mistral::ExternalResource",
    "OS::Zun::Container",
    "OS::Blazar::Host",
    "OS::Blazar::Lease",
    "OS::Magnum::ClusterTemplate",
    "OS::Magnum::Cluster",
    "OS::Monasca::Notification",
    "OS::Monasca::AlarmDefinition",
}


def test_catalog_holds_exactly_the_cloud_types() -> None:
    """Every OpenStack type the providers serve, and no native OS::Heat::* type."""
    assert set(CATALOG) == EXPECTED_TYPES


@pytest.mark.parametrize(
    ("type_name", "property_name", "rule"),
    [
        ("OS::Nova::Server", "flavor", UpdateRule.UPDATE),
        ("OS::Nova::Server", "image", UpdateRule.UPDATE),
        ("OS::Nova::Server", "name", UpdateRule.UPDATE),
        ("OS::Nova::Server", "metadata", UpdateRule.UPDATE),
        ("OS::Nova::Server", "networks", UpdateRule.UPDATE),
        ("OS::Nova::Server", "availability_zone", UpdateRule.REPLACE),
        ("OS::Nova::Server", "user_data", UpdateRule.UPDATE),
        ("OS::Nova::Server", "scheduler_hints", UpdateRule.REPLACE),
        ("OS::Nova::KeyPair", "public_key", UpdateRule.REPLACE),
        ("OS::Nova::ServerGroup", "rules", UpdateRule.IMMUTABLE),
        ("OS::Neutron::Net", "name", UpdateRule.UPDATE),
        ("OS::Neutron::Subnet", "cidr", UpdateRule.REPLACE),
        ("OS::Neutron::Subnet", "dns_nameservers", UpdateRule.UPDATE),
        ("OS::Neutron::Port", "network", UpdateRule.REPLACE),
        ("OS::Neutron::Port", "fixed_ips", UpdateRule.UPDATE),
        ("OS::Neutron::Router", "external_gateway_info", UpdateRule.UPDATE),
        ("OS::Neutron::RouterInterface", "subnet", UpdateRule.REPLACE),
        ("OS::Neutron::SecurityGroup", "rules", UpdateRule.UPDATE),
        ("OS::Neutron::SecurityGroupRule", "port_range_min", UpdateRule.REPLACE),
        ("OS::Neutron::FloatingIP", "port_id", UpdateRule.UPDATE),
        ("OS::Neutron::FloatingIPAssociation", "port_id", UpdateRule.UPDATE),
        ("OS::Cinder::Volume", "size", UpdateRule.UPDATE),
        ("OS::Cinder::Volume", "image", UpdateRule.REPLACE),
        ("OS::Cinder::VolumeAttachment", "instance_uuid", UpdateRule.UPDATE),
        ("OS::Octavia::LoadBalancer", "vip_subnet", UpdateRule.REPLACE),
        ("OS::Octavia::Listener", "protocol_port", UpdateRule.REPLACE),
        ("OS::Octavia::Listener", "default_pool", UpdateRule.UPDATE),
        ("OS::Octavia::Pool", "lb_algorithm", UpdateRule.UPDATE),
        ("OS::Octavia::PoolMember", "weight", UpdateRule.UPDATE),
        ("OS::Octavia::L7Rule", "l7policy", UpdateRule.REPLACE),
        ("OS::Aodh::Alarm", "meter_name", UpdateRule.REPLACE),
        ("OS::Aodh::Alarm", "threshold", UpdateRule.UPDATE),
        ("OS::Aodh::CompositeAlarm", "composite_rule", UpdateRule.UPDATE),
        ("OS::Aodh::EventAlarm", "time_constraints", UpdateRule.REPLACE),
        ("OS::Keystone::Project", "parent", UpdateRule.REPLACE),
        ("OS::Keystone::User", "password", UpdateRule.UPDATE),
        ("OS::Keystone::Region", "id", UpdateRule.REPLACE),
        ("OS::Mistral::Workflow", "tasks", UpdateRule.UPDATE),
        ("OS::Mistral::Workflow", "name", UpdateRule.UPDATE),
        ("OS::Mistral::CronTrigger", "pattern", UpdateRule.REPLACE),
        ("OS::Mistral::ExternalResource", "actions", UpdateRule.UPDATE),
        ("OS::Zaqar::MistralTrigger", "workflow_id", UpdateRule.UPDATE),
        ("OS::Zaqar::Subscription", "queue_name", UpdateRule.UPDATE),
        ("OS::Zun::Container", "image", UpdateRule.REPLACE),
        ("OS::Zun::Container", "networks", UpdateRule.UPDATE),
        ("OS::Blazar::Lease", "reservations", UpdateRule.REPLACE),
        ("OS::Blazar::Host", "extra_capability", UpdateRule.REPLACE),
        ("OS::Neutron::QoSBandwidthLimitRule", "policy", UpdateRule.REPLACE),
        ("OS::Neutron::QoSBandwidthLimitRule", "max_kbps", UpdateRule.UPDATE),
        ("OS::Neutron::QoSDscpMarkingRule", "dscp_mark", UpdateRule.UPDATE),
        ("OS::Neutron::SubnetPool", "prefixes", UpdateRule.UPDATE),
        ("OS::Neutron::AddressScope", "ip_version", UpdateRule.REPLACE),
        ("OS::Neutron::ProviderNet", "segmentation_id", UpdateRule.UPDATE),
        ("OS::Nova::Flavor", "extra_specs", UpdateRule.UPDATE),
        ("OS::Nova::Flavor", "ram", UpdateRule.REPLACE),
        ("OS::Cinder::QoSSpecs", "specs", UpdateRule.UPDATE),
        ("OS::Cinder::QoSAssociation", "volume_types", UpdateRule.UPDATE),
        ("OS::Magnum::Cluster", "node_count", UpdateRule.UPDATE),
        ("OS::Magnum::Cluster", "master_count", UpdateRule.REPLACE),
        ("OS::Magnum::ClusterTemplate", "coe", UpdateRule.REPLACE),
        ("OS::Magnum::ClusterTemplate", "labels", UpdateRule.UPDATE),
        ("OS::Monasca::AlarmDefinition", "expression", UpdateRule.REPLACE),
        ("OS::Monasca::AlarmDefinition", "severity", UpdateRule.UPDATE),
        ("OS::Monasca::Notification", "address", UpdateRule.UPDATE),
        ("AWS::EC2::Instance", "InstanceType", UpdateRule.UPDATE),
        ("AWS::EC2::Instance", "ImageId", UpdateRule.REPLACE),
    ],
)
def test_update_rules_follow_the_heat_reference(type_name: str, property_name: str, rule: UpdateRule) -> None:
    """A property's update rule decides between update in place and replacement."""
    assert CATALOG[type_name].properties[property_name].update is rule


POLICIES = [
    ("new user_data replaces by default", {"user_data"}, {}, {"user_data"}),
    ("unless its policy says IGNORE", {"user_data"}, {"user_data_update_policy": "IGNORE"}, set()),
    ("a new flavor resizes by default", {"flavor"}, {}, set()),
    ("or replaces when its policy says so", {"flavor"}, {"flavor_update_policy": "REPLACE"}, {"flavor"}),
    ("a new image rebuilds by default", {"image"}, {}, set()),
    ("an unknown property replaces", {"bogus"}, {}, {"bogus"}),
]


@pytest.mark.parametrize(
    ("changed", "desired", "reasons"), [p[1:] for p in POLICIES], ids=[p[0] for p in POLICIES]
)
def test_server_update_policies_decide_replacement(
    changed: set[str], desired: dict[str, str], reasons: set[str]
) -> None:
    """Heat's Server: flavor, image and user_data follow their update-policy properties."""
    server = CATALOG["OS::Nova::Server"]
    assert server.replace_reasons_given(frozenset(changed), desired) == reasons  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("type_name", "attribute"),
    [
        ("OS::Nova::Server", "first_address"),
        ("OS::Nova::Server", "networks"),
        ("OS::Nova::Server", "addresses"),
        ("OS::Nova::KeyPair", "private_key"),
        ("OS::Neutron::Port", "fixed_ips"),
        ("OS::Neutron::Net", "subnets"),
        ("OS::Neutron::FloatingIP", "floating_ip_address"),
        ("OS::Cinder::Volume", "attachments"),
        ("OS::Magnum::Cluster", "api_address"),
        ("AWS::EC2::Instance", "PublicIp"),
    ],
)
def test_documented_attributes_are_readable(type_name: str, attribute: str) -> None:
    assert attribute in CATALOG[type_name].attributes


@pytest.mark.parametrize("type_name", sorted(EXPECTED_TYPES))
def test_every_type_is_consistent(type_name: str) -> None:
    """`show` on every type; names match their keys; a required property has no default."""
    entry = CATALOG[type_name]
    assert entry.name == type_name
    assert "show" in entry.attributes
    for name, schema in entry.properties.items():
        assert schema.name == name
        assert not (schema.required and schema.default is not None)


def test_replace_reasons_name_only_replacing_properties() -> None:
    server = CATALOG["OS::Nova::Server"]
    assert server.replace_reasons({"flavor", "availability_zone", "no_such"}) == {
        "availability_zone",
        "no_such",
    }


def test_asynchronous_types_are_those_that_build() -> None:
    assert {name for name, entry in CATALOG.items() if entry.asynchronous} == {
        "OS::Nova::Server",
        "OS::Cinder::Volume",
        "OS::Cinder::VolumeAttachment",
        *(
            f"OS::Octavia::{name}"
            for name in ("LoadBalancer", "Listener", "Pool", "PoolMember", "HealthMonitor")
        ),
        *(f"OS::Octavia::{name}" for name in ("L7Policy", "L7Rule")),
        "OS::Glance::WebImage",
        "OS::Designate::Zone",
        "OS::Designate::RecordSet",
        "OS::Designate::Domain",
        "OS::Designate::Record",
        "OS::Barbican::Order",
        "OS::Mistral::ExternalResource",
        "OS::Zun::Container",
        "OS::Magnum::Cluster",
        "AWS::EC2::Instance",
    }
