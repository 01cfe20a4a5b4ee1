"""A daemon running in this process on a throw-away repository, for the daemon benchmarks.

The service runs on the main thread (it owns the signal handlers); the benchmark drives commits
and measures from a second thread, reading only what any user could: the state store's rows and
the notes in git.
"""

from __future__ import annotations

import logging
import shutil
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import git

from reconciler.daemon.assembly import AssembledDaemon, assemble
from reconciler.daemon.settings import DaemonSettings

TEMPLATE = """heat_template_version: 2018-08-31
description: benchmark stack, revision {revision}
resources:
  first:
    type: OS::Heat::Value
    properties:
      value: "{revision}"
  second:
    type: OS::Heat::None
    depends_on: first
outputs:
  value:
    value: {{get_attr: [first, value]}}
"""
CONFIG = """branch: main
defaults: {cloud: sim}
stacks:
  bench:
    template: stacks/bench.yaml
"""
POLL_SECONDS = 0.002  # how often the driver looks; bounds the measurement's resolution


def bench_repository(path: Path) -> git.Repo:
    repo = git.Repo.init(path, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Benchmark")
        config.set_value("user", "email", "bench@reconciler.invalid")
    commit_revision(repo, 0)
    return repo


def commit_revision(repo: git.Repo, revision: int) -> str:
    root = Path(repo.working_tree_dir or ".")
    (root / "stacks").mkdir(exist_ok=True)
    (root / "stacks" / "bench.yaml").write_text(TEMPLATE.format(revision=revision))
    (root / "reconciler.yaml").write_text(CONFIG)
    repo.index.add(["stacks/bench.yaml", "reconciler.yaml"])
    return repo.index.commit(f"revision {revision}").hexsha


def wait_until(condition: Callable[[], bool], timeout: float = 60.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(POLL_SECONDS)
    return False


def run_with_daemon(drive: Callable[[AssembledDaemon, git.Repo], None]) -> None:
    """Run `drive(daemon, repo)` on a thread while the daemon serves on this (the main) thread."""
    logging.getLogger("apscheduler").setLevel(logging.ERROR)  # skipped overlapping wake-ups are expected
    workdir = Path(tempfile.mkdtemp(prefix="reconciler-bench-"))
    try:
        repo = bench_repository(workdir / "repo")
        settings = DaemonSettings(
            repo=str(workdir / "repo"), state_dir=str(workdir / "state"), listen="127.0.0.1:0"
        )
        daemon = assemble(settings, environ={})
        failure: list[BaseException] = []

        def driver() -> None:
            try:
                drive(daemon, repo)
            except BaseException as error:
                failure.append(error)
            finally:
                daemon.service.request_stop()

        thread = threading.Thread(target=driver, name="bench-driver")
        thread.start()
        daemon.run()
        thread.join()
        if failure:
            raise failure[0]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def summary(name: str, samples: list[float]) -> str:
    ordered = sorted(samples)
    return (
        f"{name}: median {statistics.median(ordered) * 1000:.0f} ms, "
        f"p90 {ordered[int(len(ordered) * 0.9) - 1] * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms "
        f"over {len(ordered)} commits"
    )
