"""Signatures on git objects checked by git itself, against one trust policy.

`git verify-commit` does the checking, for both formats it knows: SSH signatures against an
allowed-signers file (`gpg.ssh.allowedSignersFile`, through `ssh-keygen -Y`), OpenPGP signatures
against a keyring imported into a scratch `GNUPGHOME`. Each check gets its own scratch directory,
so neither the daemon user's keyring nor its git configuration can widen whom it trusts: a key
verifies only if the policy holds it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import git

GPG_SECONDS = 30.0
_SSH_KEY = re.compile(r"with (\S+) key (SHA256:\S+)")
_GPG_KEY = re.compile(r"^\[GNUPG:\] (?:ERRSIG|NO_PUBKEY|BADSIG|EXPKEYSIG|REVKEYSIG) (\S+)", re.MULTILINE)
_SSH_PRINCIPAL = re.compile(r'Good "git" signature for (\S+) with')
_GPG_GOOD = re.compile(r"^\[GNUPG:\] GOODSIG \S+ (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class TrustPolicy:
    """Who may sign: SSH allowed signers and OpenPGP public keys, and where they were read."""

    allowed_signers: bytes | None
    gpg_keyring: bytes | None
    source: str  # e.g. "keys/allowed_signers at 1a2b3c4d5e6f", for reasons people read


@dataclass(frozen=True)
class Verified:
    """Signed by a key the policy trusts; `signer` as git names it (principal or user id)."""

    signer: str


@dataclass(frozen=True)
class Unverified:
    """Not signed, or signed by a key the policy does not hold, or a signature that does not match."""

    reason: str


Verdict = Verified | Unverified


def verify_commit(repo: git.Repo, sha: str, policy: TrustPolicy) -> Verdict:
    """Whether commit `sha` carries a good signature by a key `policy` trusts."""
    try:
        signed = bool(repo.commit(sha).gpgsig)
    except (ValueError, git.BadName) as error:
        return Unverified(f"{sha[:12]} is not a commit of this repository ({error})")
    if not signed:
        return Unverified("not signed")
    with tempfile.TemporaryDirectory(prefix="reconciler-verify-") as scratch:
        signers, gnupg_home = _scratch_policy(Path(scratch), policy)
        status, stdout, stderr = repo.git.execute(
            ["git", "-c", f"gpg.ssh.allowedSignersFile={signers}", "verify-commit", "--raw", sha],
            env={**os.environ, "GNUPGHOME": str(gnupg_home)},
            with_extended_output=True,
            with_exceptions=False,
        )
    output = f"{stdout}\n{stderr}"
    if status == 0:
        return Verified(_signer(output))
    return Unverified(_refusal(output, policy))


def _scratch_policy(scratch: Path, policy: TrustPolicy) -> tuple[Path, Path]:
    """The allowed-signers file and the GNUPGHOME holding exactly the policy's keys."""
    signers = scratch / "allowed_signers"
    signers.write_bytes(policy.allowed_signers or b"")
    gnupg_home = scratch / "gnupg"
    gnupg_home.mkdir(mode=0o700)
    if policy.gpg_keyring and shutil.which("gpg") is not None:
        subprocess.run(
            ["gpg", "--batch", "--quiet", "--no-autostart", "--import"],
            input=policy.gpg_keyring,
            env={**os.environ, "GNUPGHOME": str(gnupg_home)},
            capture_output=True,
            timeout=GPG_SECONDS,
            check=False,
        )
    return signers, gnupg_home


def _signer(output: str) -> str:
    principal = _SSH_PRINCIPAL.search(output) or _GPG_GOOD.search(output)
    if principal is not None:
        return principal.group(1).strip()
    key = _SSH_KEY.search(output)
    return key.group(2) if key is not None else "a trusted key"


def _refusal(output: str, policy: TrustPolicy) -> str:
    """Why git refused the signature, naming the key and the policy that does not hold it."""
    ssh_key = _SSH_KEY.search(output)
    if ssh_key is not None and "No principal matched" in output:
        return f"signed with {ssh_key.group(1)} key {ssh_key.group(2)}, which {policy.source} does not trust"
    gpg_key = _GPG_KEY.search(output)
    if gpg_key is not None:
        if "NO_PUBKEY" in output or ("ERRSIG" in output and "BADSIG" not in output):
            return f"signed with OpenPGP key {gpg_key.group(1)}, which {policy.source} does not trust"
        return f"the OpenPGP signature of key {gpg_key.group(1)} does not match the commit"
    if "incorrect signature" in output:
        return "the signature does not match the commit (changed after it was signed)"
    if "gpg.ssh.allowedSignersFile" in output or "could not verify" in output.lower():
        return f"the signature could not be checked against {policy.source}"
    last = [line for line in output.splitlines() if line.strip()]
    return f"signature refused: {last[-1].strip() if last else 'git verify-commit failed'}"
