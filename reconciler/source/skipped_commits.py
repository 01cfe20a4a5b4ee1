"""Commits of the tracked branch the daemon never read on their own: a push brought several at once.

Only the newest is converged (DESIGN.md section 4: supersede, never block); the ones between the
commit read before and it still get a note, so every commit of the branch says what became of it.
"""

from __future__ import annotations

import git

SKIPPED_LIMIT = 1000  # commits noted at most per push; older ones in a huge push stay unnoted


def skipped_commits(repo: git.Repo, read_before: str, read_now: str) -> list[str]:
    """First-parent commits after `read_before` and before `read_now`, oldest first (none when
    `read_before` is not an ancestor of `read_now`: a force-push rewrote the branch)."""
    try:
        listing: str = repo.git.rev_list(
            "--first-parent", f"--max-count={SKIPPED_LIMIT + 1}", f"{read_before}..{read_now}"
        )
    except git.GitCommandError:
        return []
    commits = listing.split()
    if not commits or read_before == read_now or not _is_ancestor(repo, read_before, read_now):
        return []
    return list(reversed(commits[1 : SKIPPED_LIMIT + 1]))


def _is_ancestor(repo: git.Repo, older: str, newer: str) -> bool:
    try:
        repo.git.merge_base("--is-ancestor", older, newer)
    except git.GitCommandError:
        return False
    return True
