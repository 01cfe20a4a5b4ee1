"""The public corpus' software orchestration templates on the simulated cloud, scripts run by its agents.

Given the simulated cloud holding what a template names (a key pair `default`, a network
`private` with a subnet, the images the templates name by default), when a corpus template is
converged with the simulated cloud's agents running, then it is CONVERGED (a deployment that
waits for its signal completes only with an agent's result: status code 0) and the agents executed
the servers' runs (a NO_SIGNAL deployment's run may come after the stack converged).

Templates configured by cloud-init alone (`CLOUD_INIT_ONLY`: RAW user data, no deployment) converge
with nothing for an agent to run. Templates of the corpus using SoftwareConfig, SoftwareDeployment
or WaitCondition that do not converge here, and why (`NOT_CONVERGING`), are listed so that the list
is checked, not forgotten.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from providers.simulated.settings import CloudSettings
from reconciler.agent import loop_devices
from reconciler.daemon.sim_disks import unavailable_reason
from reconciler.engine import StackStatus
from reconciler.engine.desired import DesiredGeneration
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from tests.software.software_world import SoftwareWorld
from tests.software.test_sim_agents import agents_for, wait_until

CORPUS = Path(os.environ.get("RECONCILER_CORPUS", Path(__file__).resolve().parents[3] / "shared" / "corpus"))
EXAMPLES = "heat-templates-hot/software-config/example-templates"
KEY, IMAGE, FLAVOR, NETWORK = "default", "cirros-0.6.2-x86_64-disk", "m1.small", "private"
# images the templates name in their parameters' defaults: the simulated cloud is given them
DEFAULT_IMAGES = (
    "fedora-software-config",
    "ubuntu-software-config",
    "fedora-amd64",
    "fedora-20.x86_64",
    "heat-functional-tests-image",
)
PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl corpus"
BASIC = {"key_name": KEY, "flavor": FLAVOR}

VOLUME_WRITER = "heat-tempest-plugin-scenario/test_volumes_delete_snapshot.yaml"
CONVERGING: dict[str, dict[str, Any]] = {
    f"{EXAMPLES}/example-script-template.yaml": BASIC,
    f"{EXAMPLES}/example-software-deploymentgroup-template.yaml": {
        **BASIC,
        "ubuntu_image": IMAGE,
        "fedora_image": IMAGE,
        "network": NETWORK,
    },
    f"{EXAMPLES}/example-sw-component-template.yaml": {**BASIC, "image": IMAGE},
    f"{EXAMPLES}/example-structured-template.yaml": BASIC,
    f"{EXAMPLES}/example-ansible-template.yaml": BASIC,
    f"{EXAMPLES}/example-cfn-init-template.yaml": BASIC,
    f"{EXAMPLES}/example-deploy-sequence.yaml": BASIC,
    f"{EXAMPLES}/example-docker-compose-template.yaml": {
        **BASIC,
        "private_net": NETWORK,
        "public_net": "public",
        **{f"env_file_{n}": "" for n in range(4)},
    },
    f"{EXAMPLES}/example-kubelet-template.yaml": {**BASIC, "private_net": NETWORK, "public_net": "public"},
    f"{EXAMPLES}/example-os-apply-config-plus-cloud-config.yaml": BASIC,
    f"{EXAMPLES}/example-os-apply-config.yaml": BASIC,
    f"{EXAMPLES}/example-puppet-template.yaml": BASIC,
    f"{EXAMPLES}/example-salt-template.yaml": BASIC,
    f"{EXAMPLES}/wordpress/WordPress_software-config_1-instance.yaml": BASIC,
    f"{EXAMPLES}/wordpress/WordPress_software-config_2-instances.yaml": BASIC,
    "heat-templates-hot/native_waitcondition.yaml": {**BASIC, "image": IMAGE},
    f"{EXAMPLES}/cirros-example/cirros-hello-world.yaml": {**BASIC, "image": IMAGE},  # writes /hello
    # needs root and openssh-server: its check runs every time in test_ssh_between_servers
    f"{EXAMPLES}/example-ssh-copy-id.yaml": {**BASIC, "private_net": NETWORK},
    # formats, mounts and writes its volume: needs disks (root, loop devices, fuse2fs)
    VOLUME_WRITER: {
        "key_name": KEY,
        "instance_type": FLAVOR,
        "image_id": IMAGE,
        "timeout": 600,
        "network": NETWORK,
    },
}
# converge, but configure through cloud-init alone (RAW user data, no deployment): no agent runs
CLOUD_INIT_ONLY: dict[str, dict[str, Any]] = {
    f"{EXAMPLES}/example-cloud-init-configure-ca-cert.yaml": BASIC,
    f"{EXAMPLES}/example-cloud-init.yaml": BASIC,
    "heat-tempest-plugin-scenario/netcat-webapp.yaml": {"app_port": 8080, "wc_curl_cli": "true"},
}
# fast enough for every run of the suite; the others run with `-m slow`
EVERY_RUN = {
    f"{EXAMPLES}/example-script-template.yaml",
    f"{EXAMPLES}/example-software-deploymentgroup-template.yaml",
    f"{EXAMPLES}/example-sw-component-template.yaml",
    f"{EXAMPLES}/cirros-example/cirros-hello-world.yaml",
    VOLUME_WRITER,
}
NEEDS_DISKS = {VOLUME_WRITER: unavailable_reason()}

NOT_CONVERGING = {
    f"{EXAMPLES}/example-chef-template.yaml": "invalid: a StructuredConfig `config` that is a list",
    f"{EXAMPLES}/example-config-pristine-image.yaml": "needs Heat::InstallConfigAgent from an "
    "environment of boot-config, whose templates install agents from package mirrors",
    f"{EXAMPLES}/example-pristine-atomic-tool.yaml": "the same (Heat::InstallConfigAgent)",
    f"{EXAMPLES}/example-pristine-atomic-docker-compose.yaml": "the same (Heat::InstallConfigAgent)",
    "heat-tempest-plugin-scenario/test_server_signal.yaml": "its server names a network by a "
    "parameter it leaves unset",
    "heat-tempest-plugin-scenario/lb_member.yaml": "an LBaaS pool member: no load balancer service here",
    "heat-tempest-plugin-scenario/app_server_neutron.yaml": "needs OS::Test::WebAppConfig from its "
    "test's environment",
    "heat-tempest-plugin-scenario/test_server_cfn_init.yaml": "a CloudFormation-format template",
    "heat-tempest-plugin-scenario/test_server_software_config.yaml": "get_file of absolute paths its "
    "test supplies",
    "heat-tempest-plugin-scenario/test_volumes_create_from_backup.yaml": "needs a volume backup to "
    "restore, and its script waits for the volume as a device of the VM",
}

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"the corpus is not at {CORPUS}")


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, sqlite_url, cloud=CloudSettings(volume_data=tmp_path / "volumes"))
    cloud = world.cloud
    cloud.create("keypairs", {"name": KEY, "public_key": PUBLIC_KEY})
    network = cloud.create("networks", {"name": NETWORK})
    cloud.create("subnets", {"name": f"{NETWORK}-subnet", "network_id": network["id"], "cidr": "10.0.0.0/24"})
    for name in DEFAULT_IMAGES:
        cloud.create("images", {"name": name})
    yield world
    world.close()


def converge(world: SoftwareWorld, template: str, parameters: dict[str, Any]) -> StackStatus:
    definition = load_stack(DirectorySource(CORPUS), template, parameters=parameters)
    world.engine.submit("corpus", DesiredGeneration(world.repo.head.commit.hexsha, world.policy, definition))
    pause = threading.Event()
    for _ in range(1200):
        world.engine.step()
        world.engine.wait_for_calls()
        world.clock.sleep(1.0)
        report = world.engine.converge(("corpus",), world.clock.now())["corpus"]
        if report.status in (StackStatus.CONVERGED, StackStatus.FAILED):
            assert report.status is StackStatus.CONVERGED, [failure.reason for failure in report.failures]
            return report.status
        pause.wait(0.05)
    raise AssertionError("still converging")


def marks_of(template: str) -> list[pytest.MarkDecorator]:
    """Slow unless fast enough for every run; skipped where the template needs what the host lacks."""
    marks = [] if template in EVERY_RUN else [pytest.mark.slow]
    lacking = NEEDS_DISKS.get(template)
    return [*marks, pytest.mark.skipif(lacking is not None, reason=f"no disks here: {lacking}")]


@pytest.mark.parametrize(
    "template",
    [pytest.param(name, marks=marks_of(name), id=Path(name).stem) for name in CONVERGING],
)
def test_a_corpus_template_converges_with_its_scripts_run_by_the_agents(
    world: SoftwareWorld, tmp_path: Path, template: str
) -> None:
    world.commit({"README": "corpus"})
    agents = agents_for(world, tmp_path / "agents")
    try:
        assert converge(world, template, CONVERGING[template]) is StackStatus.CONVERGED
        wait_until(lambda: agents.executed() >= 1, 30)
    finally:
        agents.stop()
    assert loop_devices.backed_by(tmp_path) == []  # a volume's disk is let go with the fleet


@pytest.mark.slow
@pytest.mark.parametrize("template", [pytest.param(name, id=Path(name).stem) for name in CLOUD_INIT_ONLY])
def test_a_corpus_template_configured_by_cloud_init_alone_converges(
    world: SoftwareWorld, template: str
) -> None:
    world.commit({"README": "corpus"})
    assert converge(world, template, CLOUD_INIT_ONLY[template]) is StackStatus.CONVERGED


def test_every_corpus_template_with_software_types_is_either_converged_or_said_why_not() -> None:
    marked = (
        "OS::Heat::SoftwareConfig",
        "OS::Heat::SoftwareDeployment",
        "OS::Heat::WaitCondition",
        "OS::Heat::StructuredConfig",
        "OS::Heat::CloudConfig",
    )
    using = {
        path.relative_to(CORPUS).as_posix()
        for path in CORPUS.rglob("*.yaml")
        if "heat_template_version" in (text := path.read_text(encoding="utf-8", errors="replace"))
        and any(name in text for name in marked)
        and "/boot-config/" not in path.as_posix()
        and "/Windows/" not in path.as_posix()
    }
    assert using - set(CONVERGING) - set(CLOUD_INIT_ONLY) - set(NOT_CONVERGING) == set()
