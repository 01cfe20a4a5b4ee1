"""A sandboxed server's users: root, the image's default user, and the daemons', as on a VM.

Given the daemon runs as root and a server booted as a machine (its host name, its default user
`ec2-user` holding its key pair's key, its neighbours in /etc/hosts), when its script switches to
the default user (`su - ec2-user`), then it is that user in its own home with the key, under the
server's host name. What the users' mapping exposes: nothing more of the host. A host file owned
by a host user is no sandbox user's (the host's copy never changes), a file only the host's root
may read stays unreadable to the default user, and the server's /etc/shadow holds no password hash.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.sandbox import isolation_available, sandboxed_script_hook
from reconciler.agent.sandbox_machine import Machine, MachineWay, booted_as
from reconciler.agent.sandbox_users import users_switchable

KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl test"
HOST_USER = 1000  # a user of the host, as a distribution numbers its first one

pytestmark = pytest.mark.skipif(
    not (isolation_available() and users_switchable()),
    reason="the sandbox maps its users only when the daemon runs as root with user namespaces",
)


def boot(server: Path, name: str = "web-1", hosts: tuple[tuple[str, str], ...] = ()) -> MachineWay:
    return booted_as(Machine(name, authorized_keys=(KEY,), hosts=hosts), server)


def run(script: str, server: Path, machine: MachineWay) -> dict[str, Any]:
    return sandboxed_script_hook({"config": script}, server / "runs", 60, None, machine)


def test_a_script_switches_to_the_images_default_user_in_its_own_home(tmp_path: Path) -> None:
    server = tmp_path / "server"
    script = "#!/bin/bash\nsu - ec2-user -c 'id -un; pwd; cat .ssh/authorized_keys; hostname'\n"
    script += "grep db-1 /etc/hosts"
    result = run(script, server, boot(server, hosts=(("10.0.0.7", "db-1"),)))
    assert result["deploy_status_code"] == 0, result
    assert result["deploy_stdout"].splitlines() == [
        "ec2-user",
        "/home/ec2-user",
        KEY,
        "web-1",
        "10.0.0.7 db-1",
    ]


def test_the_default_user_and_its_home_are_the_servers_alone(tmp_path: Path) -> None:
    one, other = tmp_path / "one", tmp_path / "other"
    run("#!/bin/sh\nsu - ec2-user -c 'echo mine > note'", one, boot(one))
    found = run(
        "#!/bin/sh\ncat /home/ec2-user/note; getent passwd ec2-user | cut -d: -f1", other, boot(other)
    )
    assert "No such file" in found["deploy_stderr"]
    assert found["deploy_stdout"] == "ec2-user\n"  # its own, made at its own first boot
    assert not Path("/home/ec2-user").exists()


@pytest.fixture
def host_users_file(tmp_path: Path) -> Path:
    """A file of a host user that anybody in its group may write, in a directory of its own."""
    directory = tmp_path / "shared"
    directory.mkdir(mode=0o775)
    path = directory / "data"
    path.write_text("host\n")
    path.chmod(0o666)
    for owned in (directory, path):
        os.chown(owned, HOST_USER, HOST_USER)
    tmp_path.chmod(0o755)
    return path


def test_a_host_users_file_is_no_sandbox_users_and_stays_unchanged(
    tmp_path: Path, host_users_file: Path
) -> None:
    server = tmp_path / "server"
    script = (
        f"#!/bin/sh\nstat -c '%u' {host_users_file}\n"
        f"su - ec2-user -c 'echo user >> {host_users_file}; touch {host_users_file.parent}/new'\n"
        f"echo root >> {host_users_file}\nexit 0"
    )
    result = run(script, server, boot(server))
    assert result["deploy_stdout"].splitlines()[0] == "65534"  # the host's user is nobody here
    assert "Permission denied" in result["deploy_stderr"]
    assert host_users_file.read_text() == "host\n"
    assert sorted(path.name for path in host_users_file.parent.iterdir()) == ["data"]


def test_the_default_user_reads_nothing_only_the_hosts_root_may_and_shadow_holds_no_hash(
    tmp_path: Path,
) -> None:
    secret = tmp_path / "secret"
    secret.write_text("credentials\n")
    secret.chmod(0o600)
    tmp_path.chmod(0o755)
    server = tmp_path / "server"
    script = (
        f"#!/bin/sh\nsu - ec2-user -c 'cat {secret}'\n"
        "cut -d: -f2 /etc/shadow /etc/gshadow | sort -u | tr '\\n' ' '"
    )
    result = run(script, server, boot(server))
    assert "Permission denied" in result["deploy_stderr"]
    assert "credentials" not in result["deploy_stdout"]
    assert set(result["deploy_stdout"].split()) <= {"*", "!", "!*", "x", ""}


def test_a_server_sees_nothing_of_the_fleets_state_not_even_another_servers_layer(tmp_path: Path) -> None:
    fleet = tmp_path / "servers"
    one, other = fleet / "one", fleet / "other"
    written = run(
        "#!/bin/sh\nsu - ec2-user -c 'echo private > key'", one, booted_as(Machine("one"), one, hidden=fleet)
    )
    assert written["deploy_status_code"] == 0, written
    assert list((one / "root" / "upper").rglob("key"))  # where the host keeps it
    script = f"#!/bin/sh\nfind {fleet} -name key -o -name '*.json' | grep -v '^{other}/runs/'\necho ok"
    looked = run(script, other, booted_as(Machine("other"), other, hidden=fleet))
    assert looked["deploy_stdout"] == "ok\n", looked
