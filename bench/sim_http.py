"""openstacksdk against the simulated cloud's HTTP face, served by `reconciler sim serve` in its own
process so the client's CPU is measured alone: calls per second and client CPU per call.

    python -m bench.sim_http [--calls 2000] [--listed 10000]

Measures: network creates, filtered list calls (one small page each), server creates, and a full
paged list of `--listed` servers (requests counted by the server's admin stats).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import openstack
from openstack.config import OpenStackConfig

IMAGE = "cirros-0.6.2-x86_64-disk"


def serve(directory: Path) -> tuple[subprocess.Popen[str], str]:
    clouds_yaml = directory / "clouds.yaml"
    command = [sys.executable, "-m", "reconciler.cli.main", "sim", "serve", "--clouds-yaml", str(clouds_yaml)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    assert process.stderr is not None
    for line in process.stderr:
        if "serving at" in line:
            return process, line.split("serving at ")[1].split()[0]
    raise SystemExit("reconciler sim serve did not start")


def measure(label: str, count: int, work: Callable[[], object]) -> None:
    wall, cpu = time.perf_counter(), time.process_time()
    work()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rate, cpu_ms = count / wall, cpu / count * 1e3
    print(
        f"{label:<34} {count:>6} calls {wall:6.2f} s = {rate:7,.0f} calls/s, client CPU {cpu_ms:5.2f} ms/call"
    )


def requests_served(url: str) -> int:
    with urllib.request.urlopen(f"{url}/admin/stats") as answer:
        return int(sum(json.load(answer)["calls"].values()))


def list_raw_pages(connection: openstack.connection.Connection) -> int:
    """Every server by following `servers_links`, reading the JSON without building SDK objects."""
    count, path = 0, "/servers/detail"
    params: dict[str, str] = {}
    while path:
        body = connection.compute.get(path, params=params).json()
        count += len(body["servers"])
        links = [link["href"] for link in body.get("servers_links", []) if link["rel"] == "next"]
        path, params = ("/servers/detail", dict(parse_qsl(urlsplit(links[0]).query))) if links else ("", {})
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--listed", type=int, default=10_000)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="sim-http-bench-") as directory:
        process, url = serve(Path(directory))
        try:
            config = OpenStackConfig(config_files=[str(Path(directory) / "clouds.yaml")], load_envvars=False)
            connection = openstack.connection.Connection(config=config.get_one(cloud="simulated"))
            image = connection.image.find_image(IMAGE, ignore_missing=False)
            flavor = connection.compute.find_flavor("m1.tiny", ignore_missing=False)
            calls = arguments.calls

            def create_networks() -> None:
                for index in range(calls):
                    connection.network.create_network(name=f"n{index}", tags=["b"])

            def list_networks() -> None:
                for index in range(calls):
                    list(connection.network.networks(name=f"n{index}"))

            def create_servers(first: int, last: int) -> None:
                for index in range(first, last):
                    connection.compute.create_server(
                        name=f"s{index}", image_id=image.id, flavor_id=flavor.id, networks="none"
                    )

            measure("create network", calls, create_networks)
            measure("list networks (name filter)", calls, list_networks)
            measure("create server", calls, lambda: create_servers(0, calls))
            create_servers(calls, arguments.listed)
            before = requests_served(url)
            wall = time.perf_counter()
            listed = list_raw_pages(connection)
            wall = time.perf_counter() - wall
            print(f"list all {listed} servers, JSON pages via the SDK session: "
                  f"{requests_served(url) - before} requests, {wall:.2f} s")  # fmt: skip
            before = requests_served(url)
            wall = time.perf_counter()
            listed = sum(1 for _ in connection.compute.servers())
            wall = time.perf_counter() - wall
            served = requests_served(url) - before
            print(f"list all {listed} servers as SDK Server objects: {served} requests, {wall:.2f} s")
        finally:
            process.terminate()
            process.wait(timeout=30)


if __name__ == "__main__":
    main()
