"""The simulated cloud's volumes as real disks of its servers.

Given a stack whose server boots with a script that waits for its volume, attached after the
server, to appear as `vdb`, then formats it, mounts it, writes a file, unmounts and signals a wait
condition, when the simulated cloud's agents run it, then the stack converges, the volume's image
holds the file, and so does a volume made from a snapshot of it. When a commit takes the
attachment away, the volume's loop device goes with it; when the fleet stops, every loop device
it made is gone. A fleet starting over a cloud detaches the loop devices a daemon
that died left on that cloud's images, and no other. When the agents run in a process of their
own, the daemon holds their disks' loop devices: the agents' process killed, they are released
and plugged anew for its successor; the daemon stopping, none is left.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.simulated.settings import CloudSettings
from providers.simulated.volume_data import image_path
from reconciler.agent import loop_devices
from reconciler.daemon.sim_agents import SimulatedAgents
from reconciler.daemon.sim_agents_process import AgentsProcess
from reconciler.daemon.sim_disks import unavailable_reason
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_sim_agents import (
    agent_address,
    agents_for,
    converge_in_real_time,
    needs_sandbox,
    wait_until,
)

pytestmark = [
    needs_sandbox,
    pytest.mark.skipif(unavailable_reason() is not None, reason=f"no disks here: {unavailable_reason()}"),
    pytest.mark.skipif(shutil.which("debugfs") is None, reason="e2fsprogs is not installed"),
]

VOLUME_WRITER = """
heat_template_version: 2018-08-31
resources:
  handle:
    type: OS::Heat::WaitConditionHandle
  waiting:
    type: OS::Heat::WaitCondition
    depends_on: server
    properties: {handle: {get_resource: handle}, timeout: 600}
  volume:
    type: OS::Cinder::Volume
    properties: {size: 1}
  attachment:
    type: OS::Cinder::VolumeAttachment
    properties:
      volume_id: {get_resource: volume}
      instance_uuid: {get_resource: server}
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: RAW
      user_data:
        str_replace:
          template: |
            #!/bin/sh
            for i in $(seq 1 120); do grep -q vdb /proc/partitions && break; sleep 1; done
            mkfs.ext4 -q /dev/vdb && mount /dev/vdb /mnt && echo ateststring > /mnt/testfile &&
              umount /mnt && wc_notify --data-binary '{"status": "SUCCESS"}' ||
              wc_notify --data-binary '{"status": "FAILURE", "reason": "vdb"}'
          params:
            wc_notify: {get_attr: [handle, curl_cli]}
outputs:
  volume: {value: {get_resource: volume}}
"""


DETACHED = re.sub(r"  attachment:\n(    .*\n)+", "", VOLUME_WRITER)  # the same stack, its volume detached


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url, cloud=CloudSettings(volume_data=tmp_path / "volumes"))
    world.commit({"writer.yaml": VOLUME_WRITER})
    yield world
    world.close()


def read_back(image: Path) -> str:
    command = ["debugfs", "-R", "cat /testfile", str(image)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    return done.stdout


def test_a_servers_script_formats_mounts_and_writes_its_attached_volume(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("writer", "writer.yaml")
        assert converge_in_real_time(world, "writer", 120) is StackStatus.CONVERGED
        volume = world.outputs("writer")["volume"]
        assert len(loop_devices.backed_by(tmp_path)) == 1
        world.commit({"writer.yaml": DETACHED})
        world.submit("writer", "writer.yaml")
        assert converge_in_real_time(world, "writer", 60) is StackStatus.CONVERGED
        wait_until(lambda: loop_devices.backed_by(tmp_path) == [], 10)
    finally:
        agents.stop()
    assert loop_devices.backed_by(tmp_path) == []
    assert read_back(image_path(tmp_path / "volumes", "volumes", volume)) == "ateststring\n"
    snapshot = world.cloud.create("snapshots", {"volume_id": volume, "force": True})
    copy = world.cloud.create("volumes", {"size": 1, "snapshot_id": snapshot["id"]})
    assert read_back(image_path(tmp_path / "volumes", "volumes", copy["id"])) == "ateststring\n"


def test_a_fleet_detaches_what_a_daemon_before_it_left_on_its_clouds_images_only(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    volume = world.cloud.create("volumes", {"size": 1})
    left = loop_devices.attach(image_path(tmp_path / "volumes", "volumes", volume["id"]))
    elsewhere = tmp_path / "elsewhere.img"
    elsewhere.write_bytes(b"\0" * (1 << 20))
    foreign = loop_devices.attach(elsewhere)
    try:
        agents = SimulatedAgents(lambda: world.cloud, tmp_path / "agents", scan_interval=60)
        agents.start()
        try:
            agents.scan()
        finally:
            agents.stop()
        assert loop_devices.backed_by(tmp_path / "volumes") == []
        assert loop_devices.backed_by(tmp_path) == [foreign]
    finally:
        loop_devices.detach(left)
        loop_devices.detach(foreign)
    assert loop_devices.backed_by(tmp_path) == []


def test_the_daemon_releases_the_disks_of_an_agents_process_that_died_and_plugs_them_anew(
    world: SoftwareWorld, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    agents = AgentsProcess(
        lambda: world.cloud,
        tmp_path / "agents",
        interval=0.2,
        time_limit=120,
        scan_interval=0.1,
        agent_address=agent_address(world),
    )
    agents.start()
    try:
        world.submit("writer", "writer.yaml")
        assert converge_in_real_time(world, "writer", 120) is StackStatus.CONVERGED
        volume = world.outputs("writer")["volume"]
        plugged = f"volume {volume} is vdb of server"
        assert len(loop_devices.backed_by(tmp_path)) == 1
        killed = agents.pid
        assert killed is not None
        os.kill(killed, signal.SIGKILL)
        wait_until(lambda: agents.pid not in (None, killed), 30)
        wait_until(lambda: sum(record.getMessage().startswith(plugged) for record in caplog.records) == 2, 30)
        assert len(loop_devices.backed_by(tmp_path)) == 1
    finally:
        agents.stop()
    assert loop_devices.backed_by(tmp_path) == []
    assert read_back(image_path(tmp_path / "volumes", "volumes", volume)) == "ateststring\n"
