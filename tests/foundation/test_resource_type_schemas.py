"""The resource type schemas (schemas/resource_types/): consistent data, and Heat's documented facts.

The facts below are read from Heat's resource type reference (each plugin's properties_schema and
attributes_schema) for a sample of types; the data must say the same.
"""

from __future__ import annotations

import pytest

from providers.catalog import CATALOG
from providers.heat import NATIVE_TYPES
from schemas.resource_schemas import resource_type_schemas, type_schema


def test_every_schema_is_consistent() -> None:
    """Defaults fit their type, translations point at a property, policy rules name properties."""
    for facts in resource_type_schemas().values():
        for prop in facts.properties.values():
            if prop.translated_to is not None:
                assert prop.translated_to in facts.properties, (facts.name, prop.name)
            assert not (prop.immutable and prop.update_allowed), (facts.name, prop.name)
        for name, rule in facts.replaced_by_policy.items():
            assert {name, rule.policy} <= facts.properties.keys(), facts.name
        assert "show" in facts.attributes
        if facts.placeholder:
            assert not facts.properties, facts.name


def test_every_type_a_provider_serves_has_a_schema() -> None:
    served = set(CATALOG) | set(NATIVE_TYPES)
    assert served <= set(resource_type_schemas())


def test_every_type_of_the_public_corpus_is_known() -> None:
    corpus_types = {
        "OS::Nova::Server", "OS::Heat::SoftwareConfig", "OS::Heat::SoftwareDeployment",
        "OS::Neutron::SecurityGroup", "OS::Neutron::FloatingIP", "OS::Heat::MultipartMime",
        "OS::Neutron::Port", "OS::Heat::StructuredDeployment", "OS::Heat::TestResource",
        "OS::Heat::StructuredConfig", "OS::Heat::ScalingPolicy", "OS::Heat::WaitCondition",
        "OS::Heat::RandomString", "OS::Heat::WaitConditionHandle", "OS::Heat::CloudConfig",
        "OS::Heat::AutoScalingGroup", "OS::Cinder::VolumeAttachment", "OS::Cinder::Volume",
        "OS::Neutron::Subnet", "OS::Neutron::Net", "OS::Neutron::FloatingIPAssociation",
        "OS::Heat::ResourceGroup", "OS::Mistral::Workflow", "OS::Octavia::PoolMember",
        "OS::Keystone::Role", "OS::Keystone::Project", "OS::Keystone::Group", "OS::Octavia::Pool",
        "OS::Octavia::LoadBalancer", "OS::Octavia::Listener", "OS::Octavia::HealthMonitor",
        "OS::Neutron::Router", "OS::Keystone::User", "OS::Keystone::Endpoint", "OS::Heat::Stack",
        "OS::Aodh::EventAlarm", "OS::Zun::Container", "OS::Swift::Container",
        "OS::Neutron::RouterInterface", "OS::Monasca::Notification", "OS::Monasca::AlarmDefinition",
        "OS::Mistral::CronTrigger", "OS::Keystone::Service", "OS::Keystone::Region",
        "OS::Heat::UpdateWaitConditionHandle", "OS::Designate::Domain", "OS::Ceilometer::Alarm",
        "OS::Aodh::GnocchiAggregationByResourcesAlarm", "AWS::EC2::SecurityGroup", "OS::Zaqar::Queue",
        "OS::Zaqar::MistralTrigger", "OS::Nova::KeyPair", "OS::Nova::HostAggregate",
        "OS::Nova::FloatingIPAssociation", "OS::Nova::FloatingIP", "OS::Neutron::Trunk",
        "OS::Neutron::PoolMember", "OS::Mistral::ExternalResource", "OS::Magnum::ClusterTemplate",
        "OS::Magnum::Cluster", "OS::Keystone::Domain", "OS::Heat::SoftwareDeploymentGroup",
        "OS::Heat::SoftwareComponent", "OS::Heat::InstanceGroup", "OS::Designate::Record",
        "OS::Cinder::VolumeType", "OS::Cinder::EncryptedVolumeType", "OS::Blazar::Lease",
        "OS::Blazar::Host", "OS::Barbican::Secret", "OS::Barbican::Order",
        "OS::Barbican::GenericContainer", "OS::Aodh::GnocchiAggregationByMetricsAlarm",
        "AWS::EC2::Instance", "AWS::AutoScaling::LaunchConfiguration",
    }  # fmt: skip
    assert {name for name in corpus_types if type_schema(name) is None} == set()


# (type, property, fact, value) as Heat's resource type reference documents them.
HEAT_FACTS = [
    ("OS::Nova::Server", "flavor", "required", True),
    ("OS::Nova::Server", "flavor", "update_allowed", True),
    ("OS::Nova::Server", "availability_zone", "update_allowed", False),
    ("OS::Nova::Server", "user_data_format", "default", "HEAT_CFNTOOLS"),
    ("OS::Neutron::Port", "network_id", "translated_to", "network"),
    ("OS::Neutron::Subnet", "network_id", "translated_to", "network"),
    ("OS::Neutron::Subnet", "ip_version", "default", 4),
    ("OS::Neutron::Net", "admin_state_up", "default", True),
    ("OS::Cinder::Volume", "size", "update_allowed", True),
    ("OS::Cinder::Volume", "imageRef", "translated_to", "image"),
    ("OS::Heat::RandomString", "length", "default", 32),
    ("OS::Heat::RandomString", "salt", "update_allowed", False),
    ("OS::Heat::ResourceGroup", "count", "default", 1),
    ("OS::Heat::ResourceGroup", "resource_def", "required", True),
    ("OS::Heat::StructuredConfig", "config", "type", "map"),
    ("OS::Heat::SoftwareConfig", "group", "default", "Heat::Ungrouped"),
    ("OS::Heat::SoftwareDeployment", "server", "required", True),
    ("OS::Heat::SoftwareDeployment", "signal_transport", "default", "CFN_SIGNAL"),
    ("OS::Heat::WaitCondition", "timeout", "required", True),
    ("OS::Octavia::HealthMonitor", "max_retries", "required", True),
    ("OS::Octavia::HealthMonitor", "pool", "update_allowed", False),
    ("OS::Blazar::Host", "name", "required", True),
    ("OS::Zaqar::Queue", "name", "required", False),
]


@pytest.mark.parametrize(("type_name", "prop", "fact", "value"), HEAT_FACTS)
def test_the_data_says_what_heat_documents(type_name: str, prop: str, fact: str, value: object) -> None:
    facts = resource_type_schemas()[type_name]
    assert getattr(facts.properties[prop], fact) == value


HEAT_ABSENT = [
    ("OS::Octavia::HealthMonitor", "max_retries_down"),
    ("OS::Nova::Server", "port"),
]


@pytest.mark.parametrize(("type_name", "prop"), HEAT_ABSENT)
def test_properties_heat_lacks_are_absent(type_name: str, prop: str) -> None:
    assert prop not in resource_type_schemas()[type_name].properties


def test_attributes_as_heat_documents_them() -> None:
    schemas = resource_type_schemas()
    assert {"first_address", "networks", "addresses", "show"} <= schemas["OS::Nova::Server"].attributes
    assert schemas["OS::Heat::WaitCondition"].attributes == {"data", "show"}
    assert schemas["OS::Heat::ResourceGroup"].has_attribute("resource.0.anything")
    assert not schemas["OS::Nova::Server"].has_attribute("resource.0")
