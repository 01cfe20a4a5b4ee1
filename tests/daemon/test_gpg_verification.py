"""Commit verification with an OpenPGP keyring: `verify: {gpg_keyring: keys/ops.asc}`.

Given real keys made by `gpg --quick-gen-key` (gpg is a system tool: a machine without it skips
this, CI fails it), the sample stacks signed by the trusted key and a daemon following them: a
commit signed by a key the keyring does not hold is UNVERIFIED with that key named, and the next
commit signed by the trusted key converges.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.signed_world import SignedWorld, nodes, open_signed_world
from tests.source.signing_keys import GpgSigner, gpg_signer, signed_commit
from tests.system_tools import required_tool

World = SignedWorld[GpgSigner]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    required_tool("gpg")
    bob = gpg_signer("bob@example.org")
    mallory = gpg_signer("mallory@example.org")
    try:
        keyring = {"keys/ops.asc": bob.keyring.decode("ascii")}
        signed = open_signed_world(tmp_path, bob, mallory, "verify: {gpg_keyring: keys/ops.asc}\n", keyring)
        try:
            yield signed
        finally:
            signed.daemon.close()
    finally:
        bob.close()
        mallory.close()


def test_a_commit_signed_by_a_key_outside_the_keyring_is_unverified_and_the_next_signed_one_converges(
    world: World,
) -> None:
    forged = signed_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Mallory", world.untrusted)
    world.push()

    assert world.follow(world.first)["app"] == world.first
    status, reasons = world.note(forged)
    assert status == "UNVERIFIED"
    assert f"signed with OpenPGP key {world.untrusted.fingerprint[-16:]}" in reasons[0]
    assert "keys/ops.asc" in reasons[0]
    assert world.daemon.cloud_counts()["servers"] == 2

    signed = signed_commit(world.author, {"README.md": "Reviewed by Bob.\n"}, "Bob", world.trusted)
    world.push()

    assert world.follow(signed, ("app",))["app"] == signed
    assert world.note(signed, "app")[0] == "CONVERGED"
    assert world.daemon.cloud_counts()["servers"] == 3
