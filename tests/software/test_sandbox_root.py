"""A sandboxed script's file system: the host's, beneath a writable layer its server keeps.

Given scripts run in the sandbox of a server (its runs' directory under the server's state
directory), when one writes `/hello`, `/etc/...` or any host path, then it succeeds as on a VM,
a later script on the same server finds what it wrote, a script of another server does not, the
host's files are unchanged, and removing the server's state directory removes every layer.
"""

from __future__ import annotations

import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from reconciler.agent.sandbox import isolation_available, remove_tree, sandboxed_script_hook

pytestmark = pytest.mark.skipif(not isolation_available(), reason="user namespaces are not available here")


def run(script: str, server: Path) -> dict[str, Any]:
    return sandboxed_script_hook({"config": script, "inputs": [], "outputs": []}, server / "runs", 30)


@pytest.fixture
def host_paths(tmp_path: Path) -> Iterator[dict[str, Path]]:
    """Paths of the host a script writes to: at the root, in /etc, beside the test's files."""
    name = f"sandbox-probe-{uuid.uuid4().hex[:12]}"
    paths = {"root": Path("/") / name, "etc": Path("/etc") / name, "beside": tmp_path / name}
    yield paths
    for path in paths.values():
        path.unlink(missing_ok=True)


def test_a_script_writes_anywhere_as_on_a_vm_and_the_host_is_untouched(
    tmp_path: Path, host_paths: dict[str, Path]
) -> None:
    hosts = " ".join(str(path) for path in host_paths.values())
    script = f"#!/bin/sh\nfor path in {hosts}; do echo written > $path || exit 1; done\ncat {hosts}"
    result = run(script, tmp_path / "server")
    assert result["deploy_status_code"] == 0, result
    assert result["deploy_stdout"] == "written\n" * 3
    assert [path for path in host_paths.values() if path.exists()] == []


def test_a_later_script_on_the_same_server_finds_what_an_earlier_one_wrote(
    tmp_path: Path, host_paths: dict[str, Path]
) -> None:
    written, etc = host_paths["root"], host_paths["etc"]
    first = run(f"#!/bin/sh\necho hello > {written} && echo motd > {etc}", tmp_path / "one")
    assert first["deploy_status_code"] == 0, first
    later = run(f"#!/bin/sh\ncat {written} {etc}", tmp_path / "one")
    other = run(f"#!/bin/sh\ncat {written} {etc}", tmp_path / "two")
    assert later["deploy_stdout"] == "hello\nmotd\n"
    assert other["deploy_stdout"] == ""
    assert "No such file" in other["deploy_stderr"]


def test_a_script_removing_a_host_file_removes_it_only_from_its_server(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.write_text("host\n")
    gone = run(f"#!/bin/sh\nrm {kept} && ls {kept}", tmp_path / "server")
    assert "No such file" in gone["deploy_stderr"], gone
    assert kept.read_text() == "host\n"


def test_a_script_sees_its_own_processes_and_devices(tmp_path: Path) -> None:
    result = run("#!/bin/sh\nls /proc | grep -c '^[0-9]'; echo x > /dev/null && echo null ok", tmp_path / "s")
    processes, null = result["deploy_stdout"].splitlines()
    assert int(processes) < 10  # the launcher, the script and what it runs: not the host's
    assert null == "null ok"


def test_removing_a_servers_state_directory_removes_its_layers(tmp_path: Path) -> None:
    server = tmp_path / "server"
    script = "#!/bin/sh\nmkdir -p /opt/locked/deep && touch /opt/locked/deep/f && chmod 000 /opt/locked"
    assert run(script, server)["deploy_status_code"] == 0
    remove_tree(server)
    assert not server.exists()


def test_a_unix_socket_of_the_host_refuses_a_script(tmp_path: Path) -> None:
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind(str(tmp_path / "host.sock"))
    listening.listen()
    probe = (
        f"#!{sys.executable}\nimport socket\ntry:\n"
        f"    socket.socket(socket.AF_UNIX).connect({str(tmp_path / 'host.sock')!r})\n"
        "except OSError as error:\n    print('refused:', error)\nelse:\n    print('reached')\n"
    )
    try:
        result = run(probe, tmp_path / "server")
    finally:
        listening.close()
    assert result["deploy_stdout"].startswith("refused:"), result


def test_links_and_files_a_script_makes_at_the_top_are_its_servers_own(tmp_path: Path) -> None:
    server = tmp_path / "server"
    planted = "ln -s /etc /bin-link-planted; echo mine > /etc-own-file"
    assert run(f"#!/bin/sh\n{planted}", server)["deploy_status_code"] == 0
    later = run("#!/bin/sh\ncat /etc-own-file && readlink /bin-link-planted && echo ok > /hello", server)
    assert later["deploy_stdout"] == "mine\n/etc\n", later
    assert not (Path("/") / "etc-own-file").exists()


def test_a_script_changes_neither_the_hosts_kernel_settings_nor_its_name(tmp_path: Path) -> None:
    settings = "/proc/sys/vm/swappiness /proc/sys/kernel/hostname /sys/kernel/mm"
    script = (
        f"#!/bin/sh\nfor f in {settings}; do test -w $f && echo writable $f; done\nhostname vm-1 && hostname"
    )
    result = run(script, tmp_path / "server")
    assert result["deploy_stdout"] == "vm-1\n", result
    assert socket.gethostname() != "vm-1"
