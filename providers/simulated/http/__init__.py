"""The simulated cloud's OpenStack-compatible HTTP face: Keystone v3, Nova, Neutron, Cinder v3 and
Glance v2 subsets on one port, so the real openstacksdk drives it as it would drive a cloud.
"""
