"""Pushing notes over HTTP(S) with credentials, as systemd/README.md documents them.

Given a remote served by git's own `git http-backend` behind basic auth (a forge's HTTPS endpoint
minus TLS), and the daemon's environment carrying the documented credential store
(`GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=credential.helper GIT_CONFIG_VALUE_0=store --file=...`):
the daemon fetches, converges and pushes its notes to that remote; with a wrong token it fails at
once (no prompt), and the token appears in no log line or note.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from reconciler.daemon.gitops import FetchFailed, Followed
from reconciler.source.notes_store import Pushed
from tests.daemon.gitops_world import DaemonWorld, notes_on, sample_into
from tests.source.git_http_server import GitHttpServer
from tests.source.git_repos import bare_remote, clone

TOKEN = "glpat-s3cr3t-token-0123456789"


def credential_store(monkeypatch: pytest.MonkeyPatch, path: Path, url: str, token: str) -> None:
    """The documented credential store file, and the environment the unit gives the service."""
    host = url.split("://", 1)[1].split("/", 1)[0]
    path.write_text(f"http://reconciler:{token}@{host}\n", encoding="utf-8")
    path.chmod(0o600)
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "credential.helper")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"store --file={path}")


def test_notes_are_pushed_over_http_with_the_documented_credential_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    remote = bare_remote(tmp_path / "served" / "infra.git")
    author = clone(remote.working_dir, tmp_path / "author")
    commit = sample_into(author)
    author.git.push("origin", "main")
    with GitHttpServer(tmp_path / "served", "reconciler", TOKEN) as server:
        url = server.url("infra.git")
        credential_store(monkeypatch, tmp_path / "git-credentials", url, TOKEN)
        daemon = DaemonWorld(url, tmp_path / "state")
        try:
            followed = daemon.follow()
            reports = daemon.converge(["network", "app"], commit)
            pushed = daemon.publish()
        finally:
            daemon.close()
        challenged = server.refused

    assert challenged >= 1  # git was asked for credentials, and its credential helper answered
    assert isinstance(followed, Followed) and followed.tracked == commit
    assert {str(report.status) for report in reports.values()} == {"CONVERGED"}
    assert isinstance(pushed, Pushed)
    assert {stack: line.status for stack, line in notes_on(remote, commit).items()} == {
        "network": "CONVERGED",
        "app": "CONVERGED",
    }
    assert TOKEN not in caplog.text


def test_a_wrong_token_fails_the_fetch_at_once_and_is_never_logged(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    remote = bare_remote(tmp_path / "served" / "infra.git")
    author = clone(remote.working_dir, tmp_path / "author")
    sample_into(author)
    author.git.push("origin", "main")
    wrong = "wrong-" + TOKEN
    with GitHttpServer(tmp_path / "served", "reconciler", TOKEN) as server:
        credential_store(monkeypatch, tmp_path / "git-credentials", server.url("infra.git"), wrong)
        daemon = DaemonWorld(server.url("infra.git"), tmp_path / "state")
        try:
            followed = daemon.follow()
        finally:
            daemon.close()
        refused = server.refused

    assert isinstance(followed, FetchFailed)
    assert refused >= 1
    assert wrong not in followed.reason and wrong not in caplog.text and TOKEN not in caplog.text
