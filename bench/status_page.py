"""The status page and a `/metrics` scrape at 1,000 stacks and 50,000 resources, over HTTP.

    python -m bench.status_page                      # 1,000 stacks x 50 resources, SQLite
    python -m bench.status_page --stacks 200 --resources-per-stack 250

One worker holds every shard; each stack has its generation, its status CONVERGED at a commit, its
resource records (ports, servers, volumes, attachments, values) and a dependency graph of the
same shape (what the engine's run of it would hold); a real git repository carries 20 commits,
each noted with a convergence line for every stack (the history the stack page reads); the board
saw every stack converge (1,000 events, the newest 200 kept). The daemon's own page, metrics and
operator listener serve them on loopback, and the figures are wall times of whole GET requests,
answer included: `/`, a stack's page, `/metrics`, with the CPU time per request (server and
client, which on a loaded machine says more than the wall time).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
import urllib.request
from collections.abc import Callable, Mapping
from pathlib import Path

import git

from reconciler.daemon.http_endpoints import Endpoints, HttpEndpoints
from reconciler.daemon.metered_clouds import CallMeter
from reconciler.daemon.metrics import DaemonMetrics
from reconciler.daemon.progress import Healthy
from reconciler.daemon.recent_events import RecentEvents
from reconciler.daemon.scrape_snapshot import scrape_snapshot
from reconciler.daemon.stack_board import StackBoard
from reconciler.daemon.status_document import declared_views
from reconciler.daemon.status_page import PageSources, StatusPage
from reconciler.engine.report import ActionCounts, StackReport
from reconciler.source.note_lines import CONVERGENCE, NoteLine
from reconciler.source.notes_store import DEFAULT_NOTES_REF, NotesStore
from reconciler.source.stack_history import stack_history
from state import LeaseSettings, StackStatus, Store, open_store
from state.fencing import Fence
from state.lease_results import Acquired
from state.records import RecordWrite
from timekeeping import SystemClock

KINDS = (
    ("port", "OS::Neutron::Port"),
    ("server", "OS::Nova::Server"),
    ("volume", "OS::Cinder::Volume"),
    ("attachment", "OS::Cinder::VolumeAttachment"),
    ("value", "OS::Heat::Value"),
)
COMMITS = 20


def _graph(per_stack: int) -> dict[str, frozenset[str]]:
    """Groups of port <- server, volume <- attachment -> server, value alone: the engine bench's shape."""
    graph: dict[str, frozenset[str]] = {}
    for n in range(per_stack):
        kind = KINDS[n % len(KINDS)][0]
        group = n // len(KINDS)
        needs = {
            "server": {f"port_{group}"},
            "attachment": {f"server_{group}", f"volume_{group}"},
        }.get(kind, set())
        graph[f"{kind}_{group}"] = frozenset(needs)
    return graph


def _fill_store(store: Store, stacks: list[str], per_stack: int, commit: str) -> None:
    fences: dict[int, Fence] = {}
    for shard in range(store.settings.shard_count):
        lease = store.acquire("bench", shard)
        assert isinstance(lease, Acquired)
        fences[shard] = Fence(shard, lease.epoch)
    for name in stacks:
        fence = fences[store.ensure_stack(name).shard]
        store.record_generation(name, commit_sha=commit, definition_digest="d", inputs={}, fence=fence)
        writes = [
            RecordWrite(
                stack=name,
                logical_name=f"{KINDS[n % len(KINDS)][0]}_{n // len(KINDS)}",
                type=KINDS[n % len(KINDS)][1],
                status="READY",
                generation=1,
                physical_id=f"{name}-{n:08d}",
                properties={"name": f"{name}-{n}"},
            )
            for n in range(per_stack)
        ]
        store.write_records(fence, writes)
        store.set_status(name, StackStatus.CONVERGED, generation=1, fence=fence, commit=commit)


def _noted_repository(path: Path, stacks: list[str]) -> list[str]:
    """A repository of `COMMITS` commits, each noted for every stack; the commits, oldest first."""
    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "bench")
        config.set_value("user", "email", "bench@example.invalid")
    notes = NotesStore(repo, DEFAULT_NOTES_REF)
    commits = []
    for number in range(COMMITS):
        (path / "reconciler.yaml").write_text(f"# revision {number}\n")
        repo.index.add(["reconciler.yaml"])
        sha = repo.index.commit(f"Revision {number}").hexsha
        lines = [
            NoteLine(CONVERGENCE, name, sha, "CONVERGED", time.time(), counts={"updated": 1})
            for name in stacks
        ]
        notes.write_all(sha, lines)
        commits.append(sha)
    repo.close()
    return commits


def _timed_gets(url: str, runs: int) -> tuple[list[float], float, int]:
    """Wall seconds of `runs` GETs of `url`, the CPU seconds per GET (this process: the server's
    thread and the client), and the answer's size."""
    seconds, size = [], 0
    cpu_started = time.process_time()
    for _run in range(runs):
        started = time.perf_counter()
        with urllib.request.urlopen(url) as response:
            size = len(response.read())
        seconds.append(time.perf_counter() - started)
    return seconds, (time.process_time() - cpu_started) / runs, size


def _served(
    store: Store,
    stacks: list[str],
    head: str,
    repo_path: Path,
    graph: Mapping[str, frozenset[str]],
) -> tuple[HttpEndpoints, Callable[[], None]]:
    board_events = RecentEvents()
    board = StackBoard(SystemClock(), [board_events.send])
    for name in stacks:
        board.saw(
            StackReport(
                name, StackStatus.CONVERGED, head, 1, ActionCounts(created=len(graph)), resources=len(graph)
            )
        )
    meter = CallMeter()
    for service_type in dict(KINDS).values():
        meter.called(service_type, "create", "ok")
    metrics = DaemonMetrics(lambda: scrape_snapshot(board.views(), store, range(64), meter), board.views)
    page = StatusPage(
        PageSources(
            stacks=lambda: (head, declared_views(stacks, board.views(), store.read_stacks)),
            events=board_events.newest,
            resources=store.resource_page,
            graph=lambda _name: graph,
            history=lambda name, limit: stack_history(repo_path, DEFAULT_NOTES_REF, head, name, limit),
            redact=lambda _stack, text: text,
        )
    )
    server = HttpEndpoints(
        "127.0.0.1",
        0,
        Endpoints(health=Healthy, metrics=metrics.render, git_hook=lambda: None, page=page.answer),
    )
    return server, server.stop


def _row(label: str, seconds: list[float], cpu: float, size: int) -> str:
    ordered = sorted(seconds)
    p90 = ordered[max(0, round(0.9 * len(ordered)) - 1)]
    return (
        f"{label:<24} median {statistics.median(ordered) * 1000:7.1f} ms  p90 {p90 * 1000:7.1f} ms  "
        f"max {ordered[-1] * 1000:7.1f} ms  CPU {cpu * 1000:6.1f} ms  ({size / 1024:.0f} KiB)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--stacks", type=int, default=1000)
    parser.add_argument("--resources-per-stack", type=int, default=50)
    parser.add_argument("--runs", type=int, default=20)
    arguments = parser.parse_args()
    stacks = [f"stack-{n:04d}" for n in range(arguments.stacks)]
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        started = time.perf_counter()
        commits = _noted_repository(root / "repo", stacks)
        # one lease for the whole run: setting up 1,000 stacks takes longer than the default 15 s
        hour = LeaseSettings(lease_seconds=3600, renew_seconds=5)
        store = open_store(f"sqlite:///{root / 'state.sqlite'}", clock=SystemClock(), settings=hour)
        _fill_store(store, stacks, arguments.resources_per_stack, commits[-1])
        print(
            f"{len(stacks)} stacks, {len(stacks) * arguments.resources_per_stack} resources, "
            f"{COMMITS} noted commits: set up in {time.perf_counter() - started:.1f} s"
        )
        server, stop = _served(
            store, stacks, commits[-1], root / "repo", _graph(arguments.resources_per_stack)
        )
        server.start()
        try:
            host, port = server.address
            base = f"http://{host}:{port}"
            middle = stacks[len(stacks) // 2]
            for path in ("/", f"/stacks/{middle}", "/metrics"):
                _timed_gets(base + path, 2)  # warm: first connections, first queries
                print(_row(f"GET {path}", *_timed_gets(base + path, arguments.runs)))
        finally:
            stop()
            store.close()


if __name__ == "__main__":
    main()
