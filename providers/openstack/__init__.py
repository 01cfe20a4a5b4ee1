"""OpenStack provider on openstacksdk: the only package that imports `openstack`.

May import `providers.interface`; never state, the engine or the other backends.
"""
