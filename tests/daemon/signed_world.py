"""The sample stacks in a bare remote whose commits are signed, and a daemon following it.

`open_signed_world` commits the sample stacks with a `verify:` block and the trusted key's file,
signed by the trusted signer, pushes them and lets a daemon converge them; the scenario then
pushes commits signed (or not) by whom it likes and follows them pass by pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import git

from reconciler.source.note_lines import REPOSITORY_SCOPE
from tests.daemon.gitops_world import SAMPLES, DaemonWorld, notes_on
from tests.source.git_repos import bare_remote, clone
from tests.source.signing_keys import Signer, signed_commit

PROD = (SAMPLES / "environments" / "prod.yaml").read_text(encoding="utf-8")
STACKS = ("network", "app")
SignerT = TypeVar("SignerT", bound=Signer)


def nodes(count: int) -> str:
    """environments/prod.yaml with `count` app servers."""
    return PROD.replace("node_count: 2", f"node_count: {count}")


@dataclass
class SignedWorld(Generic[SignerT]):
    """A bare remote, an author's clone of it, a daemon following the remote, and two signers."""

    author: git.Repo
    daemon: DaemonWorld
    trusted: SignerT
    untrusted: SignerT  # a real key the policy does not hold
    first: str
    state_dir: Path
    url: str

    def push(self, *refs: str) -> None:
        self.author.git.push("origin", *(refs or ("main",)))

    def follow(self, commit: str, stacks: tuple[str, ...] = STACKS) -> dict[str, str]:
        """Follow the remote, converge until `stacks` settled at `commit`, publish; each stack's commit."""
        self.daemon.follow()
        self.daemon.converge(stacks, commit)
        self.daemon.publish()
        reports = {name: self.daemon.daemon.engine.report(name) for name in STACKS}
        return {name: str(report.commit if report else None) for name, report in reports.items()}

    def note(self, commit: str, stack: str = REPOSITORY_SCOPE) -> tuple[str, tuple[str, ...]]:
        """The newest convergence note line of `stack` on `commit`, as the remote has it."""
        self.author.git.fetch("origin", "+refs/notes/reconciler:refs/notes/reconciler")
        line = notes_on(self.author, commit)[stack]
        return line.status, line.failures

    def restart(self, **settings: str) -> None:
        """A new daemon on the same state directory (the same database and trust anchor)."""
        self.daemon.close()
        self.daemon = DaemonWorld(self.url, self.state_dir, **settings)


def sample_files(verify: str, trust_files: dict[str, str], policies: str = "") -> dict[str, str]:
    """The sample repository's files with `verify` (a YAML line) and `policies` under `defaults`."""
    files = {
        str(path.relative_to(SAMPLES)): path.read_text(encoding="utf-8")
        for path in SAMPLES.rglob("*")
        if path.is_file()
    }
    config = files["reconciler.yaml"].replace("  prune: true\n", f"  prune: true\n{policies}")
    files["reconciler.yaml"] = verify + config
    return {**files, **trust_files}


def open_signed_world(
    tmp_path: Path,
    trusted: SignerT,
    untrusted: SignerT,
    verify: str,
    trust_files: dict[str, str],
    *,
    policies: str = "",
) -> SignedWorld[SignerT]:
    """The world with the sample stacks converged at their first (signed) commit."""
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    first = signed_commit(author, sample_files(verify, trust_files, policies), "Signed stacks", trusted)
    author.git.push("origin", "main")
    url = f"file://{remote.working_dir}"
    world = SignedWorld(
        author, DaemonWorld(url, tmp_path / "state"), trusted, untrusted, first, tmp_path / "state", url
    )
    converged = world.follow(first)
    assert converged == {"network": first, "app": first}, converged
    return world
