"""Signatures checked by git against a policy, and commits admitted against the last verified one.

Real ed25519 keys and `git commit -S`; no daemon: the verdicts and the admission of a push's
commits, oldest first, as `reconciler.source.signatures` and `commit_trust` give them.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import git

from reconciler.source.commit_trust import CommitTrust
from reconciler.source.signatures import TrustPolicy, Unverified, Verified, verify_commit
from tests.source.git_repos import init_repository
from tests.source.signing_keys import signed_commit, ssh_signer, unsigned_commit

STACKS = "stacks:\n  a: {template: t.yaml, cloud: sim}\n"
TEMPLATE = "heat_template_version: 2018-08-31\n"


def tampered(repo: git.Repo, commit: str) -> str:
    """`commit` with its message changed and its signature kept: a forged object."""
    raw: bytes = repo.git.cat_file("commit", commit, stdout_as_string=False, strip_newline_in_stdout=False)
    with tempfile.TemporaryFile() as forged:
        forged.write(raw.replace(b"Signed\n", b"Forged\n"))
        forged.seek(0)
        sha: str = repo.git.hash_object("-t", "commit", "-w", "--stdin", istream=forged)
    return sha


def test_git_gives_each_verdict_with_its_reason(tmp_path: Path) -> None:
    alice = ssh_signer(tmp_path / "keys", "alice@example.org")
    eve = ssh_signer(tmp_path / "keys", "eve@example.org")
    repo = init_repository(tmp_path / "repo")
    policy = TrustPolicy(alice.allowed_signers_line().encode(), None, "keys/allowed_signers")
    by_alice = signed_commit(repo, {"a": "1"}, "Signed", alice)
    by_eve = signed_commit(repo, {"a": "2"}, "Eve", eve)
    nobody = unsigned_commit(repo, {"a": "3"}, "Nobody")

    assert verify_commit(repo, by_alice, policy) == Verified("alice@example.org")
    assert verify_commit(repo, nobody, policy) == Unverified("not signed")
    refused = verify_commit(repo, by_eve, policy)
    assert refused == Unverified(
        f"signed with ED25519 key {eve.fingerprint()}, which keys/allowed_signers does not trust"
    )
    forged = verify_commit(repo, tampered(repo, by_alice), policy)
    assert forged == Unverified("the signature does not match the commit (changed after it was signed)")


def test_with_no_verify_block_every_commit_is_admitted_and_the_newest_taken(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    files = {"reconciler.yaml": STACKS, "t.yaml": TEMPLATE}
    commits = [unsigned_commit(repo, {**files, "n": str(n)}, f"c{n}") for n in range(3)]

    admission = CommitTrust(repo, tmp_path / "anchor").admit(commits)

    assert admission.take == commits[-1]
    assert admission.passed_over == tuple(commits[:-1])
    assert admission.unverified == ()
    assert CommitTrust(repo, tmp_path / "anchor").anchor == commits[-1]  # kept across restarts


def test_a_push_turning_verification_on_is_checked_from_the_next_commit(tmp_path: Path) -> None:
    alice = ssh_signer(tmp_path / "keys", "alice@example.org")
    repo = init_repository(tmp_path / "repo")
    base = unsigned_commit(repo, {"reconciler.yaml": STACKS, "t.yaml": TEMPLATE}, "No policy")
    trust = CommitTrust(repo, tmp_path / "anchor")
    trust.admit([base])
    turned_on = unsigned_commit(
        repo,
        {
            "reconciler.yaml": "verify: {allowed_signers: signers}\n" + STACKS,
            "signers": alice.allowed_signers_line(),
        },
        "Verify from now on",
    )
    unsigned = unsigned_commit(repo, {"t.yaml": TEMPLATE + "# unsigned\n"}, "Unsigned")
    signed = signed_commit(repo, {"t.yaml": TEMPLATE + "# signed\n"}, "Signed", alice)

    admission = trust.admit([turned_on, unsigned, signed])

    assert admission.take == signed
    assert admission.passed_over == (turned_on,)
    assert admission.unverified == ((unsigned, "not signed"),)
