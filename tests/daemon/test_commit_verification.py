"""Commit verification: only commits signed by a trusted key are applied.

Given the sample stacks in a bare remote whose `reconciler.yaml` says `verify: {allowed_signers:
keys/allowed_signers}` (a real ed25519 key made for the test, commits signed by `git commit -S`),
and a daemon following that remote: an unsigned commit, or one signed by a key the allowed
signers do not hold, gets an UNVERIFIED note with the reason and nothing of it is applied; the
next signed commit converges. The policy that checks a commit is the one of the last verified
commit, so no commit can weaken verification for itself.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli
from reconciler.daemon.settings import SettingsError
from tests.daemon.gitops_world import DaemonWorld
from tests.daemon.signed_world import SignedWorld, nodes, open_signed_world
from tests.source.git_repos import init_repository
from tests.source.signing_keys import SshSigner, signed_commit, ssh_signer, unsigned_commit

VERIFY = "verify: {allowed_signers: keys/allowed_signers}\n"
World = SignedWorld[SshSigner]


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    alice = ssh_signer(tmp_path / "keys", "alice@example.org")
    eve = ssh_signer(tmp_path / "keys", "eve@example.org")
    signed = open_signed_world(
        tmp_path, alice, eve, VERIFY, {"keys/allowed_signers": alice.allowed_signers_line()}
    )
    try:
        yield signed
    finally:
        signed.daemon.close()


def test_an_unsigned_commit_is_noted_unverified_and_the_next_signed_commit_converges(
    world: World,
) -> None:
    unsigned = unsigned_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Unsigned")
    world.push()

    assert world.follow(world.first) == {"network": world.first, "app": world.first}
    assert world.note(unsigned) == ("UNVERIFIED", ("not signed",))
    assert world.daemon.cloud_counts()["servers"] == 2  # nothing of it applied
    shown = CliRunner().invoke(cli, ["status", unsigned, "--repo", str(world.author.working_dir)])
    assert "UNVERIFIED" in shown.output and "not signed" in shown.output, shown.output

    signed = signed_commit(world.author, {"README.md": "Reviewed.\n"}, "Signed on top", world.trusted)
    world.push()

    assert world.follow(signed, ("app",)) == {"network": world.first, "app": signed}
    assert world.note(signed, "app")[0] == "CONVERGED"
    assert world.daemon.cloud_counts()["servers"] == 3  # a signature vouches for the whole tree


def test_a_commit_signed_by_an_untrusted_key_is_refused_with_the_key_named(world: World) -> None:
    forged = signed_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Eve", world.untrusted)
    world.push()

    assert world.follow(world.first)["app"] == world.first
    status, reasons = world.note(forged)
    assert status == "UNVERIFIED"
    assert f"signed with ED25519 key {world.untrusted.fingerprint()}," in reasons[0]
    assert "does not trust" in reasons[0] and "keys/allowed_signers" in reasons[0]


@pytest.mark.parametrize(
    ("change", "by"),
    [
        pytest.param("drop verify", None, id="unsigned-commit-removing-verify"),
        pytest.param("add eve", "eve", id="eve-signing-the-commit-that-trusts-her"),
    ],
)
def test_a_commit_cannot_weaken_verification_for_itself(world: World, change: str, by: str | None) -> None:
    root = Path(world.author.working_dir)
    config = (root / "reconciler.yaml").read_text(encoding="utf-8")
    if change == "drop verify":
        files = {"reconciler.yaml": config.replace(VERIFY, ""), "environments/prod.yaml": nodes(3)}
    else:
        signers = world.trusted.allowed_signers_line() + world.untrusted.allowed_signers_line()
        files = {"keys/allowed_signers": signers, "environments/prod.yaml": nodes(3)}
    weakening = (
        signed_commit(world.author, files, change, world.untrusted)
        if by
        else unsigned_commit(world.author, files, change)
    )
    world.push()

    assert world.follow(world.first)["app"] == world.first
    assert world.note(weakening)[0] == "UNVERIFIED"
    assert world.daemon.cloud_counts()["servers"] == 2


def test_a_push_of_a_signed_then_an_unsigned_commit_converges_to_the_signed_one(world: World) -> None:
    signed = signed_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Three", world.trusted)
    unsigned = unsigned_commit(world.author, {"environments/prod.yaml": nodes(4)}, "Four")
    world.push()

    assert world.follow(signed, ("app",))["app"] == signed
    assert world.note(unsigned)[0] == "UNVERIFIED"
    assert world.note(signed, "app")[0] == "CONVERGED"
    assert world.daemon.cloud_counts()["servers"] == 3


def test_a_restarted_daemon_at_an_unverified_head_keeps_the_last_verified_state(world: World) -> None:
    rotated = signed_commit(
        world.author,
        {"keys/allowed_signers": world.untrusted.allowed_signers_line()},
        "Eve only",
        world.trusted,
    )
    world.push()
    assert world.follow(rotated, ())["network"] == world.first  # a key rotation touches no stack
    unsigned = unsigned_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Unsigned")
    world.push()
    world.follow(world.first, ())
    world.restart()
    assert world.follow(rotated) == {"network": rotated, "app": rotated}  # the anchor, not the head
    assert world.note(unsigned)[0] == "UNVERIFIED"
    assert world.daemon.cloud_counts()["servers"] == 2

    by_eve = signed_commit(world.author, {"README.md": "Eve now.\n"}, "Eve signs", world.untrusted)
    by_alice = signed_commit(world.author, {"README.md": "Alice no more.\n"}, "Alice signs", world.trusted)
    world.push()
    assert world.follow(by_eve, ("app",))["app"] == by_eve  # the rotation made before the restart holds
    assert world.note(by_alice)[0] == "UNVERIFIED"


def test_a_policy_pinned_in_the_daemons_settings_is_the_only_one(world: World, tmp_path: Path) -> None:
    pinned = tmp_path / "pinned_allowed_signers"
    pinned.write_text(world.untrusted.allowed_signers_line(), encoding="utf-8")
    world.restart(verify_allowed_signers=str(pinned))
    by_alice = signed_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Alice", world.trusted)
    world.push()

    assert world.follow(world.first) == {"network": world.first, "app": world.first}
    status, reasons = world.note(by_alice)
    assert status == "UNVERIFIED"
    assert f"the daemon's settings ({pinned})" in reasons[0]

    by_eve = signed_commit(world.author, {"README.md": "Pinned.\n"}, "Eve", world.untrusted)
    world.push()

    assert world.follow(by_eve, ("app",))["app"] == by_eve
    assert world.daemon.cloud_counts()["servers"] == 3


def test_a_key_rotated_while_the_daemon_was_down_holds_when_it_starts(world: World) -> None:
    world.daemon.close()
    trusts_eve = world.untrusted.allowed_signers_line()
    rotated = signed_commit(
        world.author, {"keys/allowed_signers": trusts_eve}, "Rotate to Eve", world.trusted
    )
    by_eve = signed_commit(world.author, {"environments/prod.yaml": nodes(3)}, "Eve", world.untrusted)
    world.push()

    world.restart()

    assert world.follow(by_eve) == {"network": by_eve, "app": by_eve}
    assert world.note(rotated)[0] == "SUPERSEDED"
    assert world.daemon.cloud_counts()["servers"] == 3


def test_an_unreadable_pinned_policy_stops_the_daemon_at_start_naming_the_file(tmp_path: Path) -> None:
    init_repository(tmp_path / "repo")
    missing = tmp_path / "etc" / "allowed_signers"

    with pytest.raises(SettingsError) as raised:
        DaemonWorld(str(tmp_path / "repo"), tmp_path / "state", verify_allowed_signers=str(missing))

    assert str(raised.value) == (
        f"verify_allowed_signers / verify_gpg_keyring: {missing}: cannot be read: No such file or directory"
    )
