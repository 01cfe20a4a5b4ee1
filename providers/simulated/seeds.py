"""What a fresh simulated cloud holds: devstack-like flavors, two images, a public network, the
default volume type, Octavia's flavor profile, and Keystone's default domain, standard roles and the
demo project and user."""

from __future__ import annotations

import uuid

from providers.simulated import identity
from providers.simulated.load_balancing import seed_flavor_profile
from providers.simulated.volume_types import seed_default_type
from providers.simulated.world import CloudWorld

FLAVORS = (
    ("1", "m1.tiny", 512, 1, 1),
    ("2", "m1.small", 2048, 1, 20),
    ("3", "m1.medium", 4096, 2, 40),
    ("4", "m1.large", 8192, 4, 80),
    ("5", "m1.xlarge", 16384, 8, 160),
)
IMAGES = ("cirros-0.6.2-x86_64-disk", "ubuntu-22.04-server-cloudimg-amd64")
PUBLIC_NETWORK = "public"
PUBLIC_CIDR = "172.24.4.0/24"
_NAMESPACE = uuid.UUID("8c1e6b52-3b0e-4c55-9f7c-2f1d6e1b9a01")


def seed(world: CloudWorld) -> None:
    """Fill a new cloud with flavors, images and the external network floating IPs come from."""
    behaviours = world.behaviours
    for flavor_id, name, ram, vcpus, disk in FLAVORS:
        request = {"id": flavor_id, "name": name, "ram": ram, "vcpus": vcpus, "disk": disk}
        world.add("flavors", behaviours["flavors"].create(world, request))
    for name in IMAGES:
        request = {"id": str(uuid.uuid5(_NAMESPACE, name)), "name": name, "status": "active"}
        world.add("images", behaviours["images"].create(world, request))
    network = behaviours["networks"].create(world, {"name": PUBLIC_NETWORK, "router:external": True})
    world.add("networks", network)
    seed_default_type(world)
    subnet_request = {"name": f"{PUBLIC_NETWORK}-subnet", "network_id": network["id"], "cidr": PUBLIC_CIDR}
    world.add("subnets", behaviours["subnets"].create(world, subnet_request))
    seed_flavor_profile(world)
    identity.seed(world)
