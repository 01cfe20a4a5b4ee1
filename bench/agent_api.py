"""The agent API under a fleet of agents: conditional metadata polls and deployment signals.

    python -m bench.agent_api                          # SQLite in a temporary file
    python -m bench.agent_api --database 'postgresql+psycopg:///postgres?host=/var/run/postgresql'

Makes `--servers` servers with `--deployments` deployments each in a scratch database, serves the
agent API on loopback in this process, and drives it from `--clients` client processes (so the
figures of this process are the daemon's own):

- polls: every client keeps a connection and polls servers' metadata with `If-None-Match` (the
  agents already hold the current version, so most answers are 304), for `--seconds`;
- signals: the clients PUT one result to every deployment's signal URL, each from
  `--signal-connections` connections at once.

`--poll-rate 333 --fresh-connections --servers 10000` is a fleet of 10,000 agents polling every
30 s, each poll on a connection of its own as os-collect-config makes them.

Prints requests per second, the server's CPU per second of wall time (a core's share), latency
percentiles seen by the clients, and signals recorded per second.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import resource
import threading
import time
import urllib.parse
from collections.abc import Sequence
from typing import Any, NamedTuple

from bench.state_databases import scratch_database
from providers.heat.agent_links import AgentLinks, new_token
from providers.heat.software_records import SERVER_TOKEN, token_digest
from reconciler.daemon.agent_api import AgentApi
from reconciler.daemon.agent_server import AgentServer
from state.software import DeploymentRow, SoftwareStore
from state.store import open_store
from timekeeping import SystemClock


def _populate(
    software: SoftwareStore, links: AgentLinks, servers: int, deployments: int
) -> tuple[list[str], list[str]]:
    """Metadata URLs of the servers and signal URLs of their deployments."""
    metadata_urls: list[str] = []
    signal_urls: list[str] = []
    for number in range(servers):
        server_id = f"server-{number}"
        token = new_token()
        software.issue_token(token_digest(token), SERVER_TOKEN, f"marker-{number}")
        software.bind_server(f"marker-{number}", server_id)
        metadata_urls.append(links.metadata_url(token))
        for index in range(deployments):
            signal_token = new_token()
            entry = {
                "id": f"{server_id}-{index}",
                "name": f"config-{index}",
                "group": "script",
                "config": "#!/bin/sh\necho hello\n" * 20,
                "inputs": [{"name": "deploy_signal_id", "value": links.signal_url(signal_token)}],
                "outputs": [],
                "options": {},
            }
            row = DeploymentRow(
                f"{server_id}-{index}",
                server_id,
                "bench",
                f"deployment-{index}",
                "CREATE",
                "IN_PROGRESS",
                "h",
                entry,
            )
            software.put_deployment(row, token_digest(signal_token))
            signal_urls.append(links.signal_url(signal_token))
    return metadata_urls, signal_urls


class PollPlan(NamedTuple):
    seconds: float
    rate: float  # polls a second from one client; 0: as fast as answered
    fresh: bool  # a new connection per poll


def _poll(urls: Sequence[str], plan: PollPlan, ready: Any, queue: Any) -> None:
    """Fetch every URL once (the agents hold the current version, unmeasured), wait at `ready`,
    then poll `urls` in turn for `plan.seconds`, at `plan.rate`, each poll on a new connection
    when `plan.fresh` (as os-collect-config's `requests.get` makes them)."""
    seconds, rate, fresh = plan
    netloc = urllib.parse.urlsplit(urls[0]).netloc
    connection = http.client.HTTPConnection(netloc, timeout=30)
    etags: dict[str, str] = {}
    for url in urls:
        connection.request("GET", urllib.parse.urlsplit(url).path)
        answer = connection.getresponse()
        answer.read()
        etags[url] = str(answer.getheader("ETag"))
    ready.wait()
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    start = time.monotonic()
    end = start + seconds
    index = 0
    while time.monotonic() < end:
        if rate:
            due = start + index / rate
            if due > time.monotonic():
                time.sleep(due - time.monotonic())
        url = urls[index % len(urls)]
        index += 1
        headers = {"If-None-Match": etags[url]} if url in etags else {}
        started = time.perf_counter()
        if fresh:
            connection = http.client.HTTPConnection(netloc, timeout=30)
        connection.request("GET", urllib.parse.urlsplit(url).path, headers=headers)
        answer = connection.getresponse()
        answer.read()
        if fresh:
            connection.close()
        latencies.append(time.perf_counter() - started)
        statuses[answer.status] = statuses.get(answer.status, 0) + 1
        if answer.status == 200:
            etags[url] = str(answer.getheader("ETag"))
    queue.put((latencies, statuses))


def _signal(urls: Sequence[str], connections: int, queue: Any) -> None:
    """PUT a result to every URL, from `connections` connections at once (agents signal together)."""
    netloc = urllib.parse.urlsplit(urls[0]).netloc
    body = json.dumps({"deploy_stdout": "ok", "deploy_stderr": "", "deploy_status_code": 0}).encode()
    statuses: dict[int, int] = {}
    counting = threading.Lock()

    def send(share: Sequence[str]) -> None:
        connection = http.client.HTTPConnection(netloc, timeout=60)
        for url in share:
            connection.request("PUT", urllib.parse.urlsplit(url).path, body=body)
            answer = connection.getresponse()
            answer.read()
            with counting:
                statuses[answer.status] = statuses.get(answer.status, 0) + 1

    senders = [threading.Thread(target=send, args=(urls[n::connections],)) for n in range(connections)]
    for sender in senders:
        sender.start()
    for sender in senders:
        sender.join()
    queue.put(([], statuses))


def _run_clients(
    target: Any, shards: list[tuple[Any, ...]], ready: Any = None
) -> tuple[float, float, list[float], dict[int, int]]:
    """Run one client process per shard of arguments; wall and server CPU seconds, latencies,
    statuses. With `ready` (a barrier the clients wait at too), measured from when all pass it."""
    queue: Any = multiprocessing.Queue()
    extra = () if ready is None else (ready,)
    processes = [multiprocessing.Process(target=target, args=(*args, *extra, queue)) for args in shards]
    for process in processes:
        process.start()
    if ready is not None:
        ready.wait()
    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    started = time.perf_counter()
    results = [queue.get() for _ in processes]
    wall = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    for process in processes:
        process.join()
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    latencies = sorted(latency for found, _ in results for latency in found)
    statuses: dict[int, int] = {}
    for _, counts in results:
        for status, count in counts.items():
            statuses[status] = statuses.get(status, 0) + count
    return wall, cpu, latencies, statuses


def _percentile(values: Sequence[float], share: float) -> float:
    return values[min(len(values) - 1, int(share * len(values)))] if values else 0.0


def measure(
    url: str,
    *,
    servers: int,
    deployments: int,
    clients: int,
    seconds: float,
    poll_rate: float = 0.0,
    fresh_connections: bool = False,
    signal_connections: int = 1,
) -> dict[str, float]:
    store = open_store(url, clock=SystemClock())
    software = store.software()
    server = AgentServer("127.0.0.1", 0, lambda links: AgentApi(software, links))
    server.start()
    try:
        metadata_urls, signal_urls = _populate(software, server.links, servers, deployments)
        wall, cpu, latencies, statuses = _run_clients(
            _poll,
            [
                (metadata_urls[n::clients], PollPlan(seconds, poll_rate / clients, fresh_connections))
                for n in range(clients)
            ],
            multiprocessing.Barrier(clients + 1),
        )
        polls = sum(statuses.values())
        signal_wall, signal_cpu, _, signal_statuses = _run_clients(
            _signal, [(signal_urls[n::clients], signal_connections) for n in range(clients)]
        )
    finally:
        server.stop()
        store.close()
    return {
        "polls_per_second": polls / wall,
        "share_304": statuses.get(304, 0) / max(1, polls),
        "server_cpu_per_wall_second": cpu / wall,
        "p50_ms": 1000 * _percentile(latencies, 0.50),
        "p99_ms": 1000 * _percentile(latencies, 0.99),
        "signals_per_second": signal_statuses.get(200, 0) / signal_wall,
        "signal_server_cpu_per_wall_second": signal_cpu / signal_wall,
        "signals_refused": sum(count for status, count in signal_statuses.items() if status != 200),
        # what load on the machine changes least: the daemon's CPU for each answer
        "server_cpu_ms_per_poll": 1000 * cpu / max(1, polls),
        "server_cpu_ms_per_signal": 1000 * signal_cpu / max(1, signal_statuses.get(200, 0)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--database", help="PostgreSQL server URL (default: SQLite in a temporary file)")
    parser.add_argument("--servers", type=int, default=1_000)
    parser.add_argument("--deployments", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument(
        "--poll-rate", type=float, default=0.0, help="polls per second in all (0: as fast as answered)"
    )
    parser.add_argument("--fresh-connections", action="store_true", help="a new connection per poll")
    parser.add_argument(
        "--signal-connections", type=int, default=8, help="connections signalling at once per client"
    )
    options = parser.parse_args()
    with scratch_database(options.database) as url:
        figures = measure(
            url,
            servers=options.servers,
            deployments=options.deployments,
            clients=options.clients,
            seconds=options.seconds,
            poll_rate=options.poll_rate,
            fresh_connections=options.fresh_connections,
            signal_connections=options.signal_connections,
        )
    for name, value in figures.items():
        print(f"{name}: {value:,.3f}")


if __name__ == "__main__":
    main()
