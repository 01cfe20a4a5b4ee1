"""Approvals are checked like commits when verification is on.

Given the sample stacks signed by Alice under `verify: {allowed_signers: ...}` with
`require_approval: [replace, delete]`, and a signed commit that deletes a server: the stack waits
PENDING_APPROVAL. An unsigned approval and one signed by Eve's key (real, not trusted) are refused
and the note says why; an approval Alice signs (`reconciler approve --sign`, her git signing key)
lets the deletion go ahead.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli
from reconciler.source.approvals import APPROVALS_REF
from tests.daemon.signed_world import SignedWorld, nodes, open_signed_world
from tests.source.signing_keys import SshSigner, signed_commit, ssh_signer

World = SignedWorld[SshSigner]
GATED = "  require_approval: [replace, delete]\n"


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    alice = ssh_signer(tmp_path / "keys", "alice@example.org")
    eve = ssh_signer(tmp_path / "keys", "eve@example.org")
    signed = open_signed_world(
        tmp_path,
        alice,
        eve,
        "verify: {allowed_signers: keys/allowed_signers}\n",
        {"keys/allowed_signers": alice.allowed_signers_line()},
        policies=GATED,
    )
    try:
        yield signed
    finally:
        signed.daemon.close()


def approve(world: World, commit: str, signer: SshSigner | None) -> None:
    """`reconciler approve` in the author's clone, signed with `signer`'s key (None: unsigned), pushed."""
    with world.author.config_writer() as config:
        config.set_value("gpg", "format", "ssh")
        config.set_value("user", "signingkey", str(signer.key) if signer else "")
    args = ["approve", commit, "--stack", "app", "--repo", str(world.author.working_dir)]
    result = CliRunner().invoke(cli, [*args, "--sign"] if signer else args)
    assert result.exit_code == 0, result.output
    world.push(f"+{APPROVALS_REF}:{APPROVALS_REF}")


def test_only_an_approval_signed_by_a_trusted_key_releases_a_deletion(world: World) -> None:
    fewer = signed_commit(world.author, {"environments/prod.yaml": nodes(1)}, "One server", world.trusted)
    world.push()
    world.follow(fewer, ("app",))
    assert world.note(fewer, "app")[0] == "PENDING_APPROVAL"

    approve(world, fewer, None)
    world.follow(fewer, ("app",))
    status, reasons = world.note(fewer, "app")
    assert status == "PENDING_APPROVAL"
    assert any("refused: not signed" in reason for reason in reasons), reasons

    approve(world, fewer, world.untrusted)
    world.follow(fewer, ("app",))
    status, reasons = world.note(fewer, "app")
    assert status == "PENDING_APPROVAL"
    assert any(world.untrusted.fingerprint() in reason and "does not trust" in reason for reason in reasons)
    assert world.daemon.cloud_counts()["servers"] == 2

    approve(world, fewer, world.trusted)
    world.follow(fewer, ("app",))

    assert world.note(fewer, "app")[0] == "CONVERGED"
    assert world.daemon.cloud_counts()["servers"] == 1


def test_approve_sign_without_a_signing_key_is_one_line_naming_the_setting(world: World) -> None:
    with world.author.config_writer() as config:
        config.set_value("gpg", "format", "ssh")
    args = ["approve", world.first, "--sign", "--repo", str(world.author.working_dir)]

    result = CliRunner().invoke(cli, args)

    assert result.exit_code == 1
    assert "could not sign the approval" in result.output and "user.signingkey" in result.output
    assert len(result.output.strip().splitlines()) == 1
