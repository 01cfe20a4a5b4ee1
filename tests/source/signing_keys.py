"""Real signing keys made for a test, and commits signed with them by git itself.

`SshSigner`: an ed25519 key from `ssh-keygen`, its line for an allowed-signers file, and the git
options that sign with it (`gpg.format=ssh`). `GpgSigner`: a key from `gpg --quick-gen-key` in a
scratch GNUPGHOME (a short path: gpg-agent's socket must fit), its exported public keyring, and the
environment that signs with it. Both sign through `git commit -S`, as a person would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

import git

TOOL_SECONDS = 60.0


@dataclass(frozen=True)
class SshSigner:
    email: str
    key: Path
    public: str

    def allowed_signers_line(self) -> str:
        return f"{self.email} {self.public}\n"

    def fingerprint(self) -> str:
        listed = subprocess.run(
            ["ssh-keygen", "-l", "-f", f"{self.key}.pub"], capture_output=True, text=True, check=True
        )
        return listed.stdout.split()[1]

    def git_options(self) -> list[str]:
        return ["-c", "gpg.format=ssh", "-c", f"user.signingkey={self.key}"]

    def environment(self) -> dict[str, str]:
        return {}


def ssh_signer(directory: Path, email: str) -> SshSigner:
    directory.mkdir(parents=True, exist_ok=True)
    key = directory / email.split("@", maxsplit=1)[0]
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", email, "-f", str(key)],
        check=True,
        timeout=TOOL_SECONDS,
    )
    return SshSigner(email, key, Path(f"{key}.pub").read_text(encoding="ascii").strip())


@dataclass
class GpgSigner:
    email: str
    home: Path
    fingerprint: str
    keyring: bytes = field(repr=False)

    def git_options(self) -> list[str]:
        return ["-c", "gpg.format=openpgp", "-c", f"user.signingkey={self.fingerprint}"]

    def environment(self) -> dict[str, str]:
        return {"GNUPGHOME": str(self.home)}

    def close(self) -> None:
        subprocess.run(
            ["gpgconf", "--kill", "all"],
            env={**os.environ, **self.environment()},
            capture_output=True,
            check=False,
            timeout=TOOL_SECONDS,
        )
        shutil.rmtree(self.home, ignore_errors=True)


def gpg_signer(email: str) -> GpgSigner:
    home = Path(tempfile.mkdtemp(prefix="gpg-", dir="/tmp"))
    env = {**os.environ, "GNUPGHOME": str(home)}

    def gpg(*args: str) -> bytes:
        done = subprocess.run(
            ["gpg", "--batch", "--quiet", *args],
            env=env,
            capture_output=True,
            check=True,
            timeout=TOOL_SECONDS,
        )
        return done.stdout

    gpg("--passphrase", "", "--quick-gen-key", f"Test Signer <{email}>", "ed25519", "sign", "never")
    listing = gpg("--with-colons", "--list-keys", email).decode()
    fingerprint = next(line.split(":")[9] for line in listing.splitlines() if line.startswith("fpr:"))
    return GpgSigner(email, home, fingerprint, gpg("--export", "--armor", email))


Signer = SshSigner | GpgSigner


def signed_commit(repo: git.Repo, files: Mapping[str, str], message: str, signer: Signer) -> str:
    """Write `files` and commit them with `git commit -S` signed by `signer`; the commit's sha."""
    root = Path(repo.working_tree_dir or ".")
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
        repo.index.add([name])
    repo.git.execute(
        ["git", *signer.git_options(), "commit", "-q", "-S", "-m", message],
        env={**os.environ, **signer.environment()},
    )
    return repo.head.commit.hexsha


def unsigned_commit(repo: git.Repo, files: Mapping[str, str], message: str) -> str:
    root = Path(repo.working_tree_dir or ".")
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
        repo.index.add([name])
    return repo.index.commit(message).hexsha
