"""A machine's loopback holds every address its scripts are reached at, however many neighbours
it has (acknowledgements read as the requests go, never overflowing the netlink socket)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import reconciler

ROOT = Path(reconciler.__file__).resolve().parent.parent

SET_UP = """
import subprocess, sys
sys.path.insert(0, sys.argv[1])
from reconciler.agent import sandbox_loopback
addresses = [f"10.{index // 250}.{index % 250}.{1 + index % 7}" for index in range(int(sys.argv[2]))]
sandbox_loopback.set_up(addresses)
shown = subprocess.run(["ip", "-4", "-o", "address", "show", "dev", "lo"], capture_output=True, text=True)
print(sorted(line.split()[3] for line in shown.stdout.splitlines()) == sorted(
    [f"{address}/32" for address in addresses] + ["127.0.0.1/8"]
))
"""


def test_a_machine_with_two_thousand_neighbours_holds_every_address() -> None:
    ran = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--net", sys.executable, "-c", SET_UP, str(ROOT), "2000"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "True"
