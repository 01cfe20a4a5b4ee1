"""An openstacksdk connection to a served simulated cloud, made from the clouds.yaml it wrote."""

from __future__ import annotations

import openstack
from openstack.config import OpenStackConfig

from providers.simulated.http.embedded import ServedCloud


def connect(served: ServedCloud) -> openstack.connection.Connection:
    """A connection made the way any OpenStack tool makes one: from clouds.yaml."""
    config = OpenStackConfig(config_files=[str(served.clouds_yaml)], load_envvars=False)
    return openstack.connection.Connection(config=config.get_one(cloud=served.cloud_name))
