"""From `git commit` in a watched local repository to the engine starting that generation.

The clock starts just before the commit is made; it stops at the `created_at` of the generation
the engine records when the daemon submits the commit (the engine starts acting on it in the same
pass). Median of 20 commits. Run: `python -m bench.daemon_commit_to_generation`.
"""

from __future__ import annotations

import functools
import time

import git

from bench.daemon_harness import commit_revision, run_with_daemon, summary, wait_until
from reconciler.daemon.assembly import AssembledDaemon
from state import Store

COMMITS = 20


def generation_of(store: Store, sha: str) -> bool:
    generation = store.newest_generation("bench")
    return generation is not None and generation.commit_sha == sha


def drive(daemon: AssembledDaemon, repo: git.Repo) -> None:
    store = daemon.store
    if not wait_until(lambda: (g := store.newest_generation("bench")) is not None and g.generation == 1):
        raise RuntimeError("the first commit never became a generation")
    samples: list[float] = []
    for revision in range(1, COMMITS + 1):
        started = time.time()
        sha = commit_revision(repo, revision)
        if not wait_until(functools.partial(generation_of, store, sha)):
            raise RuntimeError(f"commit {sha[:12]} never became a generation")
        generation = store.newest_generation("bench")
        assert generation is not None
        samples.append(generation.created_at - started)
        time.sleep(0.2)  # let the previous generation's pass settle; not part of the figure
    print(summary("git commit -> engine starts the generation", samples))


if __name__ == "__main__":
    run_with_daemon(drive)
