"""OpenStack provider on openstacksdk: the only package that imports `openstack`.

May import `providers.interface` (and the shared `providers.catalog`); never state, the engine or
the other backends. Start at `provider.OpenStackProvider.from_cloud(name)`.
"""

from providers.openstack.provider import OpenStackProvider

__all__ = ["OpenStackProvider"]
