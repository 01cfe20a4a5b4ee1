"""A machine's loopback holds the agent API's address and makes every neighbour's address local,
however many neighbours it has, by the fewest routes that hold those addresses and no other."""

from __future__ import annotations

import ipaddress
import subprocess
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import reconciler
from reconciler.agent import sandbox_loopback

ROOT = Path(reconciler.__file__).resolve().parent.parent

# 2,000 neighbours: a run of 1,500 numbered in a row, and 500 scattered over other networks.
SET_UP = """
import errno, socket, subprocess, sys
sys.path.insert(0, sys.argv[1])
from reconciler.agent import sandbox_loopback
first = int.from_bytes(socket.inet_aton("10.0.0.3"), "big")
row = [socket.inet_ntoa((first + index).to_bytes(4, "big")) for index in range(1500)]
scattered = [f"10.{1 + index // 250}.{index % 250}.{1 + 2 * (index % 7)}" for index in range(500)]
sandbox_loopback.set_up(["192.0.2.10"], row + scattered)
routes = subprocess.run(["ip", "-4", "-o", "route", "show", "table", "local", "type", "local"],
                        capture_output=True, text=True, check=True).stdout.splitlines()
print("routes", len(routes))
shown = subprocess.run(["ip", "-4", "-o", "address", "show", "dev", "lo"], capture_output=True, text=True)
print("addresses", sorted(line.split()[3] for line in shown.stdout.splitlines()))
bound = 0
for address in row + scattered:
    with socket.socket() as listener:
        listener.bind((address, 22))
        bound += 1
print("bound", bound)
with socket.socket() as listener:
    try:
        listener.bind(("10.0.0.2", 22))
    except OSError as error:
        print("outside", errno.errorcode[error.errno])
with socket.socket() as client:
    try:
        client.connect(("10.0.6.3", 22))
    except OSError as error:
        print("connect outside", errno.errorcode[error.errno])
"""


def test_a_machine_with_two_thousand_neighbours_makes_each_local_and_nothing_else() -> None:
    ran = subprocess.run(
        ["unshare", "--user", "--map-root-user", "--net", sys.executable, "-c", SET_UP, str(ROOT)],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert ran.returncode == 0, ran.stderr
    first = ipaddress.IPv4Address("10.0.0.3")
    row = list(ipaddress.summarize_address_range(first, first + 1499))
    scattered = {f"10.{1 + index // 250}.{index % 250}.{1 + 2 * (index % 7)}" for index in range(500)}
    lines = ran.stdout.splitlines()
    # beside the kernel's own local routes for 127.0.0.0/8, 127.0.0.1 and the agent API's address
    assert lines[0] == f"routes {len(row) + len(scattered) + 3}"
    assert len(row) <= 2 * (1500).bit_length()  # a run needs at most two prefixes of each length
    assert lines[1:] == [
        "addresses ['127.0.0.1/8', '192.0.2.10/32']",
        "bound 2000",
        "outside EADDRNOTAVAIL",
        "connect outside ENETUNREACH",
    ]


@given(st.lists(st.integers(0, 2**32 - 1) | st.integers(167_772_160, 167_772_160 + 600), max_size=300))
def test_the_prefixes_hold_the_addresses_and_no_other_and_are_the_fewest(numbers: list[int]) -> None:
    addresses = [str(ipaddress.IPv4Address(number)) for number in numbers]
    found = sandbox_loopback.prefixes(addresses)
    networks = [ipaddress.IPv4Network(f"{network}/{length}") for network, length in found]
    expected = list(ipaddress.collapse_addresses(ipaddress.IPv4Network(number) for number in numbers))
    assert sorted(networks) == sorted(expected)
