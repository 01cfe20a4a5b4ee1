"""What checking a push's commits against the trust policy costs, per commit.

    python -m bench.commit_verification [--commits 100]

A git repository in a temporary directory holds a small `reconciler.yaml`. Prints the time
`CommitTrust.admit` takes over N new commits twice: with no `verify:` (the commits' configuration
is still read, once per version of `reconciler.yaml`) and with `verify: {allowed_signers: ...}`
and every commit signed by an ed25519 key made for the run (`git verify-commit` per commit).
"""

from __future__ import annotations

import argparse
import subprocess
import tempfile
import time
from pathlib import Path

import git

from reconciler.source.commit_trust import CommitTrust

STACKS = "stacks:\n  a: {template: t.yaml, cloud: sim}\n"
IDENTITY = ["-c", "user.name=Bench", "-c", "user.email=bench@example.invalid"]


def _commit(repo: git.Repo, files: dict[str, str], message: str, signing: list[str]) -> str:
    root = Path(repo.working_tree_dir or ".")
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    repo.git.add(*files)
    repo.git.execute(
        ["git", *IDENTITY, *signing, "commit", "-q", *(["-S"] if signing else []), "-m", message]
    )
    return repo.head.commit.hexsha


def _timed_admission(repo: git.Repo, base: str, commits: list[str]) -> float:
    trust = CommitTrust(repo, None)
    trust.admit([base])
    started = time.perf_counter()
    admission = trust.admit(commits)
    elapsed = time.perf_counter() - started
    assert admission.take == commits[-1] and not admission.unverified, admission
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=100)
    count = parser.parse_args().commits
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(root / "key")], check=True)
        signers = f"bench@example.invalid {(root / 'key.pub').read_text().strip()}\n"
        signing = ["-c", "gpg.format=ssh", "-c", f"user.signingkey={root / 'key'}"]
        repo = git.Repo.init(root / "repo", initial_branch="main")
        files = {"reconciler.yaml": STACKS, "t.yaml": "heat_template_version: 2018-08-31\n"}
        base = _commit(repo, files, "base", [])
        plain = [_commit(repo, {"n": str(n)}, f"c{n}", []) for n in range(count)]
        unsigned_seconds = _timed_admission(repo, base, plain)
        verify = {"reconciler.yaml": "verify: {allowed_signers: signers}\n" + STACKS, "signers": signers}
        signed_base = _commit(repo, verify, "verify", signing)
        signed = [_commit(repo, {"n": f"s{n}"}, f"s{n}", signing) for n in range(count)]
        signed_seconds = _timed_admission(repo, signed_base, signed)
    for label, seconds in (("no verify", unsigned_seconds), ("SSH-signed", signed_seconds)):
        print(f"{count} commits, {label}: {seconds:.2f} s ({seconds / count * 1000:.1f} ms a commit)")


if __name__ == "__main__":
    main()
