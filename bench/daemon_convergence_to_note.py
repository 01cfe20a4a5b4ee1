"""From a stack converging to its convergence note being in git.

The clock starts at the `updated_at` the engine writes with the stack's CONVERGED status for the
commit's generation, and stops when the note line on that commit reads CONVERGED in
`refs/notes/reconciler` (polled every 2 ms). Median of 20 commits.
Run: `python -m bench.daemon_convergence_to_note`.
"""

from __future__ import annotations

import functools
import time

import git

from bench.daemon_harness import commit_revision, run_with_daemon, summary, wait_until
from reconciler.daemon.assembly import AssembledDaemon
from reconciler.source.note_lines import newest_per_stack
from reconciler.source.notes_store import NotesStore
from state import StackStatus

COMMITS = 20


def noted_converged(repo: git.Repo, sha: str) -> bool:
    lines = newest_per_stack(NotesStore(repo).read(sha))
    return any(line.stack == "bench" and line.status == "CONVERGED" for line in lines)


def drive(daemon: AssembledDaemon, repo: git.Repo) -> None:
    store = daemon.store
    samples: list[float] = []
    for revision in range(1, COMMITS + 1):
        sha = commit_revision(repo, revision)
        if not wait_until(functools.partial(noted_converged, repo, sha)):
            raise RuntimeError(f"commit {sha[:12]} was never noted CONVERGED")
        noted_at = time.time()
        state = store.read_stack("bench")
        generation = store.newest_generation("bench")
        assert state is not None and generation is not None and generation.commit_sha == sha
        assert state.status is StackStatus.CONVERGED
        samples.append(noted_at - state.updated_at)
    print(summary("stack CONVERGED -> note in git", samples))


if __name__ == "__main__":
    run_with_daemon(drive)
