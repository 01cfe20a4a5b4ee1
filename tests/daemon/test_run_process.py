"""The real `reconciler run`: readiness and stopping over NOTIFY_SOCKET; SIGTERM mid-convergence.

Given the sample repository and a simulated cloud whose calls take 0.3 s, when the daemon gets
SIGTERM while it converges, then it exits 0 after telling systemd STOPPING=1, and a restarted
daemon finishes the work with exactly the resources an uninterrupted run makes: nothing twice.
"""

from __future__ import annotations

import re
import signal
import threading
import urllib.request
from pathlib import Path

import git

from providers.simulated.cloud import SimulatedCloud
from reconciler.source.note_lines import newest_per_stack
from reconciler.source.notes_store import NotesStore
from tests.daemon.gitops_world import sample_into, sample_repository
from tests.daemon.run_process import DaemonProcess
from tests.source.git_repos import bare_remote, clone, commit_files

READY_SECONDS = 60.0  # upper bound for start-up (imports, migrations) on a loaded 2-core machine
CONVERGE_SECONDS = 120.0
# What the sample makes in the simulated cloud (besides the cloud's own public network and subnet):
# network: app-net, its subnet, the router and its interface port, the security group;
# app: a key pair and two nodes, each a port, a server and a data volume.
EXPECTED = {"servers": 2, "volumes": 2, "keypairs": 1, "routers": 1, "security_groups": 1, "ports": 3}


def cloud_counts(state_dir: Path) -> dict[str, int]:
    cloud = SimulatedCloud.open(state_dir / "state.sqlite.sim-cloud.json")
    return {collection: cloud.count(collection) for collection in EXPECTED}


def converged_note(repo_path: Path, commit: str) -> dict[str, str]:
    lines = newest_per_stack(NotesStore(git.Repo(repo_path)).read(commit))
    return {line.stack: line.status for line in lines if line.kind == "convergence"}


def test_sigterm_mid_convergence_exits_cleanly_and_a_restart_finishes_without_duplicates(
    tmp_path: Path,
) -> None:
    _repo, commit = sample_repository(tmp_path / "repo")
    args = [
        "--repo",
        str(tmp_path / "repo"),
        "--state-dir",
        str(tmp_path / "state"),
        "--listen",
        "127.0.0.1:0",
        "--sim-latency",
        "0.3",
    ]
    first = DaemonProcess(args, tmp_path, "first")
    try:
        ready = first.wait_for("READY=1", READY_SECONDS)
        assert "STATUS=" in ready
        threading.Event().wait(1.5)  # some cloud calls done, others in flight
        assert first.terminate() == 0, first.output()
        assert first.wait_for("STOPPING=1", 5).startswith("STOPPING=1")
    finally:
        first.close()
    interrupted = converged_note(tmp_path / "repo", commit)
    assert interrupted != {"network": "CONVERGED", "app": "CONVERGED"}, (
        "the stop came too late to test anything"
    )

    second = DaemonProcess(args, tmp_path, "second")
    try:
        second.wait_for("READY=1", READY_SECONDS)
        give_up = threading.Event()
        timer = threading.Timer(CONVERGE_SECONDS, give_up.set)
        timer.start()
        while converged_note(tmp_path / "repo", commit) != {"network": "CONVERGED", "app": "CONVERGED"}:
            assert not give_up.wait(0.2), second.output()
        timer.cancel()
        status = second.wait_for("STATUS=commit", 10)
        while "2/2 stacks converged" not in status:  # STATUS= follows the stacks as they settle
            status = second.wait_for("STATUS=commit", 10)
        assert status == f"STATUS=commit {commit[:12]}: 2/2 stacks converged"
        assert second.terminate() == 0, second.output()
    finally:
        second.close()
    assert cloud_counts(tmp_path / "state") == EXPECTED


def test_sighup_rereads_the_settings_file_and_a_broken_one_keeps_the_old(tmp_path: Path) -> None:
    sample_repository(tmp_path / "repo")
    config = tmp_path / "reconciler.toml"
    config.write_text(f'[daemon]\nrepo = "{tmp_path / "repo"}"\nstate_dir = "{tmp_path / "state"}"\n')
    daemon = DaemonProcess(["--config", str(config), "--listen", "127.0.0.1:0"], tmp_path, "hup")
    try:
        daemon.wait_for("READY=1", READY_SECONDS)
        config.write_text(config.read_text() + "fetch_interval = 7\nnotes_push_interval = 2\n")
        daemon.signal(signal.SIGHUP)
        assert daemon.wait_for("RELOADING=1", 10)
        assert daemon.wait_for("READY=1", 10)
        config.write_text(config.read_text() + "fetch_intervall = 3\n")
        daemon.signal(signal.SIGHUP)
        assert daemon.wait_for("READY=1", 10)
        assert daemon.terminate() == 0
    finally:
        daemon.close()
    log = daemon.output()
    assert "reload: loop intervals now follow 7s, converge 0.1s, leases 5s, notes 2s" in log
    assert f"reload: {config}: unknown key 'fetch_intervall'" in log


def test_a_git_hook_makes_a_remote_daemon_fetch_at_once(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    first = sample_into(author)
    author.git.push("origin", "main")
    args = ["--repo", f"file://{remote.working_dir}", "--state-dir", str(tmp_path / "state")]
    daemon = DaemonProcess([*args, "--listen", "127.0.0.1:0", "--fetch-interval", "3600"], tmp_path, "hook")

    def noted(commit: str) -> bool:
        try:
            author.git.fetch("origin", "+refs/notes/reconciler:refs/notes/reconciler")
        except git.GitCommandError:
            return False  # no notes pushed yet
        return bool(NotesStore(author).read(commit))

    def wait_for_note(commit: str) -> None:
        give_up = threading.Event()
        timer = threading.Timer(CONVERGE_SECONDS, give_up.set)
        timer.start()
        while not noted(commit):
            assert not give_up.wait(0.5), daemon.output()
        timer.cancel()

    try:
        daemon.wait_for("READY=1", READY_SECONDS)
        port = re.search(r"listening on http://127\.0\.0\.1:(\d+)", daemon.output())
        assert port is not None, daemon.output()
        wait_for_note(first)  # the start-up fetch is behind us
        prod = Path(author.working_tree_dir or ".") / "environments" / "prod.yaml"
        second = commit_files(author, {"environments/prod.yaml": prod.read_text() + "# nudge\n"}, "Nudge")
        author.git.push("origin", "main")

        hook = urllib.request.Request(f"http://127.0.0.1:{port[1]}/hooks/git", data=b"{}", method="POST")
        with urllib.request.urlopen(hook) as response:
            assert response.status == 202

        wait_for_note(second)  # the fetch interval is an hour: only the hook explains this note
        assert daemon.terminate() == 0
    finally:
        daemon.close()
