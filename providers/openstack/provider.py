"""OpenStackProvider: the provider interface over openstacksdk, for the Nova, Neutron, Cinder,
Octavia, Aodh, Keystone, Swift, Glance, Designate, Barbican, Zaqar, Mistral, Zun, Blazar, Magnum and
Monasca types.

Build one per cloud with `OpenStackProvider.from_cloud(name)`: credentials, region and endpoints
come from `clouds.yaml` (or `OS_CLOUD` / `OS_*` variables) exactly as for the `openstack` command;
nothing here reads, stores or logs them. Each type's calls live in its own module (a handler);
this class only dispatches by type name and owns the shared pieces: the services' JSON clients,
the cached name lookup and the Neutron extension list. Safe to call from several threads.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any

from providers.catalog import CATALOG
from providers.catalog.alarm_bodies import ALARM_KINDS
from providers.catalog.identity_bodies import ENTITIES, GRANT_TYPES
from providers.interface import LiveResource, Marker, Permanent, ResourceType
from providers.openstack.alarm import AlarmHandler
from providers.openstack.barbican import ContainerHandler, OrderHandler, SecretHandler
from providers.openstack.cinder_qos import QoSAssociationHandler, QoSSpecsHandler
from providers.openstack.cloud_apis import (
    BLOCK_STORAGE_MICROVERSION,
    COMPUTE_MICROVERSION,
    CloudApis,
    identity_lookup_for,
    name_lookup_for,
)
from providers.openstack.connection_pools import DEFAULT_CONNECTIONS, size_connection_pools
from providers.openstack.designate import RecordSetHandler, ZoneHandler
from providers.openstack.ec2_instance import Ec2InstanceHandler
from providers.openstack.ec2_security_group import Ec2SecurityGroupHandler
from providers.openstack.errors import translated_errors
from providers.openstack.flavor import FlavorHandler
from providers.openstack.floating_ip_association import FloatingIPAssociationHandler
from providers.openstack.glance_image import WebImageHandler
from providers.openstack.host_aggregate import HostAggregateHandler
from providers.openstack.identity import IdentityHandler
from providers.openstack.json_api import JsonApi
from providers.openstack.keypair import KeyPairHandler
from providers.openstack.load_balancing import load_balancing_handlers
from providers.openstack.magnum import ClusterHandler, ClusterTemplateHandler
from providers.openstack.monasca import AlarmDefinitionHandler, NotificationHandler
from providers.openstack.network_extensions import NetworkExtensions
from providers.openstack.neutron_address_tables import ADDRESS_SCOPE, PROVIDER_NET, SUBNET_POOL
from providers.openstack.neutron_resource import NeutronResourceHandler
from providers.openstack.neutron_tables import FLOATING_IP, NET, PORT, ROUTER, SUBNET
from providers.openstack.nova_floating_ip import NovaFloatingIPAssociationHandler, NovaFloatingIPHandler
from providers.openstack.qos import QOS_POLICY, RULE_TYPES, QoSRuleHandler
from providers.openstack.quota import KINDS as QUOTA_KINDS
from providers.openstack.quota import QuotaHandler
from providers.openstack.role_assignment import RoleAssignmentHandler
from providers.openstack.router_interface import RouterInterfaceHandler
from providers.openstack.security_group import SecurityGroupHandler
from providers.openstack.security_group_rule import SecurityGroupRuleHandler
from providers.openstack.server import ServerHandler
from providers.openstack.server_group import ServerGroupHandler
from providers.openstack.server_live import SERVER_TYPE
from providers.openstack.server_power import ServerPower
from providers.openstack.swift_container import SwiftContainerHandler
from providers.openstack.trunk import TrunkHandler
from providers.openstack.type_handler import TypeHandler
from providers.openstack.volume import VolumeHandler
from providers.openstack.volume_attachment import VolumeAttachmentHandler
from providers.openstack.volume_type import EncryptedVolumeTypeHandler, VolumeTypeHandler
from providers.openstack.workflow_services import WORKFLOW_SERVICE_HANDLERS
from providers.openstack.zaqar_queue import QueueHandler


def for_each(
    type_names: Iterable[str], handler: Callable[[CloudApis, str], TypeHandler]
) -> dict[str, Callable[[CloudApis], TypeHandler]]:
    """Builders of one handler class serving several types, each told its type's name."""

    def builder(type_name: str) -> Callable[[CloudApis], TypeHandler]:
        return lambda apis: handler(apis, type_name)

    return {type_name: builder(type_name) for type_name in type_names}


HANDLERS: dict[str, Callable[[CloudApis], TypeHandler]] = {
    "OS::Nova::Server": ServerHandler,
    "OS::Nova::KeyPair": KeyPairHandler,
    "OS::Nova::ServerGroup": ServerGroupHandler,
    "OS::Nova::HostAggregate": HostAggregateHandler,
    "OS::Nova::FloatingIP": NovaFloatingIPHandler,
    "OS::Nova::FloatingIPAssociation": NovaFloatingIPAssociationHandler,
    "OS::Nova::Flavor": FlavorHandler,
    "OS::Neutron::Net": lambda apis: NeutronResourceHandler(apis, NET),
    "OS::Neutron::Subnet": lambda apis: NeutronResourceHandler(apis, SUBNET),
    "OS::Neutron::Port": lambda apis: NeutronResourceHandler(apis, PORT),
    "OS::Neutron::Router": lambda apis: NeutronResourceHandler(apis, ROUTER),
    "OS::Neutron::RouterInterface": RouterInterfaceHandler,
    "OS::Neutron::SecurityGroup": SecurityGroupHandler,
    "OS::Neutron::SecurityGroupRule": SecurityGroupRuleHandler,
    "OS::Neutron::FloatingIP": lambda apis: NeutronResourceHandler(apis, FLOATING_IP),
    "OS::Neutron::FloatingIPAssociation": FloatingIPAssociationHandler,
    "OS::Neutron::Trunk": TrunkHandler,
    "OS::Neutron::ProviderNet": lambda apis: NeutronResourceHandler(apis, PROVIDER_NET),
    "OS::Neutron::QoSPolicy": lambda apis: NeutronResourceHandler(apis, QOS_POLICY),
    **for_each(RULE_TYPES, QoSRuleHandler),
    "OS::Neutron::SubnetPool": lambda apis: NeutronResourceHandler(apis, SUBNET_POOL),
    "OS::Neutron::AddressScope": lambda apis: NeutronResourceHandler(apis, ADDRESS_SCOPE),
    "AWS::EC2::Instance": Ec2InstanceHandler,
    "AWS::EC2::SecurityGroup": Ec2SecurityGroupHandler,
    "OS::Cinder::Volume": VolumeHandler,
    "OS::Cinder::VolumeAttachment": VolumeAttachmentHandler,
    "OS::Cinder::VolumeType": VolumeTypeHandler,
    "OS::Cinder::EncryptedVolumeType": EncryptedVolumeTypeHandler,
    "OS::Cinder::QoSSpecs": QoSSpecsHandler,
    "OS::Cinder::QoSAssociation": QoSAssociationHandler,
    **for_each(ALARM_KINDS, AlarmHandler),
    **for_each(ENTITIES, IdentityHandler),
    **for_each(GRANT_TYPES, RoleAssignmentHandler),
    **for_each(QUOTA_KINDS, QuotaHandler),
    "OS::Swift::Container": lambda apis: SwiftContainerHandler(service(apis.object_store, "object-store")),
    "OS::Glance::WebImage": lambda apis: WebImageHandler(apis.image),
    "OS::Barbican::Secret": lambda apis: SecretHandler(service(apis.key_manager, "key-manager")),
    "OS::Barbican::Order": lambda apis: OrderHandler(service(apis.key_manager, "key-manager")),
    "OS::Barbican::GenericContainer": lambda apis: ContainerHandler(
        service(apis.key_manager, "key-manager"), "generic"
    ),
    "OS::Barbican::CertificateContainer": lambda apis: ContainerHandler(
        service(apis.key_manager, "key-manager"), "certificate"
    ),
    "OS::Barbican::RSAContainer": lambda apis: ContainerHandler(
        service(apis.key_manager, "key-manager"), "rsa"
    ),
    "OS::Zaqar::Queue": lambda apis: QueueHandler(service(apis.messaging, "messaging")),
    "OS::Designate::Zone": lambda apis: ZoneHandler(service(apis.dns, "dns"), "OS::Designate::Zone"),
    "OS::Designate::Domain": lambda apis: ZoneHandler(service(apis.dns, "dns"), "OS::Designate::Domain"),
    "OS::Designate::RecordSet": lambda apis: RecordSetHandler(
        service(apis.dns, "dns"), "OS::Designate::RecordSet"
    ),
    "OS::Designate::Record": lambda apis: RecordSetHandler(service(apis.dns, "dns"), "OS::Designate::Record"),
    **WORKFLOW_SERVICE_HANDLERS,
    "OS::Magnum::Cluster": lambda apis: ClusterHandler(service(apis.container_infra, "container-infra")),
    "OS::Magnum::ClusterTemplate": lambda apis: ClusterTemplateHandler(
        service(apis.container_infra, "container-infra")
    ),
    "OS::Monasca::AlarmDefinition": lambda apis: AlarmDefinitionHandler(
        service(apis.monitoring, "monitoring")
    ),
    "OS::Monasca::Notification": lambda apis: NotificationHandler(service(apis.monitoring, "monitoring")),
}


def region_allowed(config: Any, region: str) -> bool:
    """Whether openstacksdk connects the clouds.yaml entry of `config` (a `CloudRegion`) to `region`."""
    if region == getattr(config, "region_name", None) or not getattr(config, "name", None):
        return True
    import openstack.config
    from openstack import exceptions

    try:
        openstack.config.OpenStackConfig().get_one(cloud=config.name, region_name=region)
    except exceptions.ConfigException:
        return False
    return True


def service(api: JsonApi | None, name: str) -> JsonApi:
    """A service's client, which every cloud this provider is built for has (see `__init__`)."""
    if api is None:
        raise Permanent(f"the cloud has no {name} service")
    return api


def with_defaults(type_name: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """The properties with the catalog's (Heat's) default for every one the template left out."""
    entry = CATALOG.get(type_name)
    defaults = (
        {}
        if entry is None
        else {name: schema.default for name, schema in entry.properties.items() if schema.default is not None}
    )
    return {**defaults, **properties}


class OpenStackProvider:
    """A `providers.interface.Provider` for one OpenStack cloud (one project in one region)."""

    def __init__(self, connection: Any, *, pause: Callable[[float], None] = time.sleep) -> None:
        """Wrap an `openstack.connection.Connection` (see `from_cloud` for the usual way in);
        `pause` waits a number of seconds by the caller's clock (a wait for the cloud to be ready
        for the next change)."""
        self.connection = connection
        compute = JsonApi(connection.compute, "compute", COMPUTE_MICROVERSION)
        network = JsonApi(connection.network, "network")
        block_storage = JsonApi(connection.block_storage, "block-storage", BLOCK_STORAGE_MICROVERSION)
        image = JsonApi(connection.image, "image")
        identity = JsonApi(connection.identity, "identity")
        self.apis = CloudApis(
            compute=compute,
            network=network,
            block_storage=block_storage,
            image=image,
            names=name_lookup_for(compute, network, image),
            network_extensions=NetworkExtensions(network),
            alarming=JsonApi(connection.alarm, "alarming"),
            identity=identity,
            identity_names=identity_lookup_for(identity),
            object_store=JsonApi(connection.object_store, "object-store"),
            dns=JsonApi(connection.dns, "dns"),
            key_manager=JsonApi(connection.key_manager, "key-manager"),
            messaging=JsonApi(connection.message, "messaging"),
            container=JsonApi(connection.application_container, "container"),
            reservation=JsonApi(connection.reservation, "reservation"),
            workflow=JsonApi(connection.workflow, "workflow"),
            container_infra=JsonApi(connection.container_infrastructure_management, "container-infra"),
            monitoring=JsonApi(connection.monitoring, "monitoring"),
        )
        self._handlers = {name: build(self.apis) for name, build in HANDLERS.items()}
        self._handlers.update(load_balancing_handlers(connection, self.apis, pause))
        self._server_power = ServerPower(self.apis)
        self._allowed_regions: dict[str, bool] = {}

    @classmethod
    def from_cloud(
        cls,
        name: str | None = None,
        *,
        timeout: float = 60.0,
        connections: int = DEFAULT_CONNECTIONS,
        region_name: str | None = None,
        pause: Callable[[float], None] = time.sleep,
    ) -> OpenStackProvider:
        """The provider for a `clouds.yaml` entry (None: the one `OS_CLOUD` names, or `OS_*` variables);
        each HTTP call gives up after `timeout` seconds, and up to `connections` calls to each
        service's host are made at once on connections kept open (see `connection_pools`).
        `region_name`: another region of the same cloud (the SDK's own option: same credentials,
        that region's endpoints from the catalog); None: the region the entry names. `pause`: as
        the constructor's."""
        import openstack

        options: dict[str, Any] = {} if region_name is None else {"region_name": region_name}
        with translated_errors(f"connecting to cloud {name or '(OS_CLOUD)'!r}"):
            connection = openstack.connect(cloud=name, api_timeout=timeout, **options)
        size_connection_pools(connection, connections)
        return cls(connection, pause=pause)

    def resource_types(self) -> Mapping[str, ResourceType]:
        return {name: CATALOG[name] for name in self._handlers}

    def service_types(self) -> frozenset[str]:
        """The service types of the cloud's Keystone catalog (authenticating when not yet)."""
        with translated_errors("reading the service catalog"):
            catalog = self.connection.service_catalog
        return frozenset(str(entry.get("type")) for entry in catalog or () if isinstance(entry, dict))

    def region_name(self) -> str | None:
        """The region the connection's config names (None: its clouds.yaml entry names none)."""
        region = getattr(self.connection.config, "region_name", None)
        return str(region) if region else None

    def region_names(self) -> frozenset[str]:
        """The regions this cloud can be reached in: those its Keystone catalog lists endpoints in
        (authenticating when not yet) that its clouds.yaml entry allows (`regions`, as openstacksdk
        reads it: an entry naming none allows any)."""
        with translated_errors("reading the service catalog"):
            catalog = self.connection.service_catalog
        listed = {
            str(region)
            for entry in catalog or ()
            if isinstance(entry, dict)
            for endpoint in entry.get("endpoints") or ()
            if isinstance(endpoint, dict) and (region := endpoint.get("region_id") or endpoint.get("region"))
        }
        return frozenset(region for region in listed if self._region_allowed(region))

    def _region_allowed(self, region: str) -> bool:
        """`region_allowed`, remembered: clouds.yaml is read once per region, not at every check."""
        allowed = self._allowed_regions.get(region)
        if allowed is None:
            allowed = self._allowed_regions[region] = region_allowed(self.connection.config, region)
        return allowed

    def create(self, type_name: str, properties: Mapping[str, Any], marker: Marker) -> LiveResource:
        return self._handler(type_name).create(with_defaults(type_name, properties), marker)

    def update(
        self,
        type_name: str,
        physical_id: str,
        properties: Mapping[str, Any],
        changed: frozenset[str],
    ) -> LiveResource:
        return self._handler(type_name).update(physical_id, with_defaults(type_name, properties), changed)

    def delete(self, type_name: str, physical_id: str) -> None:
        self._handler(type_name).delete(physical_id)

    def observe(self, type_name: str, physical_ids: Collection[str]) -> Mapping[str, LiveResource]:
        return self._handler(type_name).observe(physical_ids)

    def find_by_marker(self, type_name: str, marker: Marker) -> LiveResource | None:
        return self._handler(type_name).find_by_marker(marker)

    def snapshot(self, type_name: str, physical_id: str, marker: Marker) -> str:
        snapshot = getattr(self._handler(type_name), "snapshot", None)
        if snapshot is None:
            raise Permanent(f'"Snapshot" deletion policy not supported for {type_name}')
        result: str = snapshot(physical_id, marker)
        return result

    def can_suspend(self, type_name: str) -> bool:
        return type_name == SERVER_TYPE

    def suspend(self, type_name: str, physical_id: str) -> LiveResource:
        return self._power(type_name).suspend(physical_id)

    def resume(self, type_name: str, physical_id: str) -> LiveResource:
        return self._power(type_name).resume(physical_id)

    def _power(self, type_name: str) -> ServerPower:
        if not self.can_suspend(type_name):
            raise Permanent(f"{type_name} cannot be suspended")
        return self._server_power

    def _handler(self, type_name: str) -> TypeHandler:
        handler = self._handlers.get(type_name)
        if handler is None:
            raise Permanent(f"the OpenStack provider does not serve {type_name}")
        return handler
