"""The heads a repository offers: the tracked branch, and every other head as a pull request.

A local repository lists its own branches (`refs/heads/*`) and any `refs/pull/*/head`; a cached
clone of a remote lists what it fetched under `refs/remotes/origin/`. Either way the daemon sees one
`Heads` snapshot and compares it with the previous one to find what is new.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import git

LOCAL_LAYOUT = ("refs/heads/", "refs/pull/")
CACHE_LAYOUT = ("refs/remotes/origin/", "refs/remotes/origin/pull/")


@dataclass(frozen=True)
class Heads:
    """The tracked branch's commit (None when it does not exist yet) and the pull-request heads."""

    tracked_branch: str
    tracked: str | None
    pull_requests: Mapping[str, str] = field(default_factory=dict)  # head name -> commit

    def new_pull_request_heads(self, previous: Heads | None) -> dict[str, str]:
        """The pull-request heads that appeared or moved since `previous`."""
        before = previous.pull_requests if previous is not None else {}
        return {name: sha for name, sha in self.pull_requests.items() if before.get(name) != sha}


def _pull_request_name(ref: str, branches_prefix: str, pulls_prefix: str) -> str | None:
    if ref.startswith(pulls_prefix) and ref.endswith("/head"):
        return "pull/" + ref.removeprefix(pulls_prefix)
    if ref.startswith(branches_prefix) and not ref.startswith(pulls_prefix):
        return ref.removeprefix(branches_prefix)
    return None


def read_heads(repo: git.Repo, tracked_branch: str, *, cached_remote: bool = False) -> Heads:
    """The heads of `repo` now, read with one `for-each-ref` (cheap even with thousands of refs)."""
    branches_prefix, pulls_prefix = CACHE_LAYOUT if cached_remote else LOCAL_LAYOUT
    listing: str = repo.git.for_each_ref(
        "--format=%(objectname) %(refname)", branches_prefix.rstrip("/"), pulls_prefix.rstrip("/")
    )
    tracked: str | None = None
    pulls: dict[str, str] = {}
    for row in listing.splitlines():
        sha, _, ref = row.partition(" ")
        if ref == branches_prefix + tracked_branch:
            tracked = sha
            continue
        name = _pull_request_name(ref, branches_prefix, pulls_prefix)
        if name is not None and name != "HEAD":
            pulls[name] = sha
    return Heads(tracked_branch=tracked_branch, tracked=tracked, pull_requests=pulls)
