"""Where a stack's resources live: a cloud (a clouds.yaml entry, or `sim`), in the region that entry
names, or in another region of the same cloud, written `<cloud>@<region>`.

A nested stack whose OS::Heat::Stack asks for another region (`context.region_name`) is built at
such an address: the same credentials and Keystone, that region's endpoints. The address is what
a stack's policy, its stored generation and every queued call name as their cloud, so records keep
their region through restarts and hand-overs; the composition root (`for_cloud`) splits it again.
"""

from __future__ import annotations

SEPARATOR = "@"


def in_region(cloud: str, region: str) -> str:
    """The address of `region` of the cloud `cloud` is on."""
    return f"{entry_of(cloud)}{SEPARATOR}{region}"


def entry_of(cloud: str) -> str:
    """The cloud (clouds.yaml entry) of an address."""
    return cloud.partition(SEPARATOR)[0]


def region_of(cloud: str) -> str | None:
    """The region an address names (None: the one its cloud's entry names)."""
    _, separator, region = cloud.partition(SEPARATOR)
    return region if separator else None
