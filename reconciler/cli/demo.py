"""`make demo`: the whole loop on the embedded defaults, from a throw-away copy of `samples-repo/`.

It makes a fresh git repository from `samples-repo/`, starts the daemon (`reconciler run`) on it
with SQLite and the simulated cloud, waits for the first commit's convergence note, commits a
change (a third application node), waits for that commit's note, and shows
`git log --notes=reconciler`. Every stage prints what actually happened, and says so plainly when
something did not (a stage that times out stops the demo with exit status 1).
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click
import git

from providers.simulated.cloud import SimulatedCloud
from reconciler.source.note_lines import newest_per_stack
from reconciler.source.note_rendering import render_text
from reconciler.source.notes_store import NotesStore

SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"
STAGE_SECONDS = 120.0
STACKS = ("network", "app")
SETTLED = frozenset({"CONVERGED", "FAILED", "INVALID"})
SIM_CLOUD_FILE = "state.sqlite.sim-cloud.json"  # beside the daemon's default SQLite file
SHOWN_COLLECTIONS = ("servers", "volumes", "ports", "routers")


def make_sample_repository(destination: Path) -> git.Repo:
    """A git repository at `destination` holding one commit of `samples-repo/` on `main`."""
    shutil.copytree(SAMPLES, destination, dirs_exist_ok=True)
    repo = git.Repo.init(destination, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Reconciler Demo")
        config.set_value("user", "email", "demo@reconciler.invalid")
    repo.git.add(A=True)
    repo.index.commit("Add the sample stacks")
    return repo


def wait_for_note(
    repo: git.Repo, commit: str, stacks: tuple[str, ...], daemon: subprocess.Popen[bytes]
) -> dict[str, str]:
    """Poll the commit's note until every stack in `stacks` settled (or the daemon died, or time ran out)."""
    deadline = time.monotonic() + STAGE_SECONDS
    statuses: dict[str, str] = {}
    while time.monotonic() < deadline and daemon.poll() is None:
        lines = newest_per_stack(NotesStore(repo).read(commit))
        statuses = {line.stack: line.status for line in lines if line.kind == "convergence"}
        if all(statuses.get(stack) in SETTLED for stack in stacks):
            return statuses
        threading.Event().wait(0.2)
    return statuses


def describe_cloud(state: Path) -> None:
    """What the simulated cloud holds now, read from the file the daemon saved it to."""
    path = state / SIM_CLOUD_FILE
    if not path.exists():
        stage("the simulated cloud was never saved: nothing was created")
        return
    cloud = SimulatedCloud.open(path)
    held = ", ".join(f"{collection} {cloud.count(collection)}" for collection in SHOWN_COLLECTIONS)
    stage(f"the simulated cloud now holds: {held}")


def stage(message: str) -> None:
    click.echo(f"demo: {message}")


def start_daemon(repo_path: Path, state: Path, log: Path) -> subprocess.Popen[bytes]:
    command = [
        sys.executable, "-m", "reconciler.cli.main", "run",
        "--repo", str(repo_path), "--state-dir", str(state), "--listen", "127.0.0.1:0",
        "--agent-listen", "127.0.0.1:0",  # the simulated cloud's servers get agents
    ]  # fmt: skip
    with log.open("wb") as output:
        return subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)


def run_demo(workdir: Path) -> int:
    repo = make_sample_repository(workdir / "repo")
    first = repo.head.commit.hexsha
    stage(f"made a git repository from samples-repo/ at commit {first[:12]} (stacks: {', '.join(STACKS)})")
    log = workdir / "daemon.log"
    daemon = start_daemon(workdir / "repo", workdir / "state", log)
    stage(f"started the daemon (pid {daemon.pid}) on SQLite and the simulated cloud, watching the repository")
    try:
        statuses = wait_for_note(repo, first, STACKS, daemon)
        if any(statuses.get(stack) != "CONVERGED" for stack in STACKS):
            stage(f"the first commit did not converge: {statuses or 'no note'}; daemon log follows")
            click.echo(log.read_text(errors="replace")[-4000:])
            return 1
        stage(f"first commit {first[:12]} converged; its note says:")
        click.echo(render_text(first, NotesStore(repo).read(first)))
        prod = workdir / "repo" / "environments" / "prod.yaml"
        prod.write_text(prod.read_text().replace("node_count: 2", "node_count: 3"))
        repo.index.add(["environments/prod.yaml"])
        second = repo.index.commit("Three application nodes").hexsha
        stage(f"committed {second[:12]}: node_count 2 -> 3 in environments/prod.yaml (touches app only)")
        statuses = wait_for_note(repo, second, ("app",), daemon)
        if statuses.get("app") != "CONVERGED":
            stage(f"the second commit did not converge: {statuses or 'no note'}; daemon log follows")
            click.echo(log.read_text(errors="replace")[-4000:])
            return 1
        stage(f"second commit {second[:12]} converged; git log --notes=reconciler shows both notes:")
        click.echo(repo.git.log("--notes=reconciler", "--format=%h %s%n%N"))
        return 0
    finally:
        daemon.send_signal(signal.SIGTERM)
        code = daemon.wait(timeout=STAGE_SECONDS)
        stage(f"sent SIGTERM; the daemon stopped with exit status {code}")
        describe_cloud(workdir / "state")


@click.command()
@click.option("--keep", is_flag=True, help="Keep the throw-away repository and print its path.")
def demo(keep: bool) -> None:
    """Run the whole loop on a throw-away repository made from samples-repo/."""
    workdir = Path(tempfile.mkdtemp(prefix="reconciler-demo-"))
    try:
        code = run_demo(workdir)
    finally:
        if keep:
            click.echo(f"demo: repository kept at {workdir / 'repo'}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    raise SystemExit(code)


if __name__ == "__main__":
    demo()
