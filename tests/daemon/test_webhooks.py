"""Webhooks both ways: pushes signed as GitHub, GitLab and Gitea sign them; stack events sent signed.

Incoming: given a webhook secret, when a forge POSTs /hooks/git over a real socket, then only a
push signed with that secret schedules a fetch; anything else gets 401 with a body saying why,
and the secret appears in no answer. Outgoing: given a receiver over real HTTP, when stacks
converge, then each event arrives as JSON whose X-Signature is the HMAC-SHA256 of the body, and a
receiver failing for a while is retried until it takes it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import git
import pytest

from reconciler.daemon.http_endpoints import Endpoints, HttpEndpoints
from reconciler.daemon.notifications import Delivery, Notifier
from reconciler.daemon.progress import Healthy
from reconciler.daemon.secrets_source import read_secret
from reconciler.daemon.stack_board import StackEvent
from tests.daemon.gitops_world import DaemonWorld, sample_into, sample_repository
from tests.daemon.run_process import DaemonProcess
from tests.source.git_repos import bare_remote, clone, commit_files

SECRET = b"It's a Secret to Everybody"
BODY = b'{"ref":"refs/heads/main"}'
DELIVERY_SECONDS = 30.0
READY_SECONDS = 60.0  # upper bound for start-up on a loaded machine


def _github(body: bytes, secret: bytes = SECRET) -> dict[str, str]:
    return {"X-Hub-Signature-256": "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()}


class HookServer:
    def __init__(self, secret: bytes | None) -> None:
        self.fetches = 0
        self.server = HttpEndpoints(
            "127.0.0.1",
            0,
            Endpoints(health=Healthy, metrics=lambda: b"", git_hook=self._fetch, webhook_secret=secret),
        )

    def _fetch(self) -> None:
        self.fetches += 1

    def post(self, headers: dict[str, str], body: bytes = BODY) -> tuple[int, str]:
        host, port = self.server.address
        request = urllib.request.Request(f"http://{host}:{port}/hooks/git", data=body, headers=headers)
        try:
            with urllib.request.urlopen(request) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()


@pytest.fixture
def hooks() -> Iterator[HookServer]:
    server = HookServer(SECRET)
    server.server.start()
    try:
        yield server
    finally:
        server.server.stop()


def test_github_gitlab_and_gitea_pushes_signed_with_the_secret_schedule_a_fetch(hooks: HookServer) -> None:
    gitea = hmac.new(SECRET, BODY, hashlib.sha256).hexdigest()

    assert hooks.post(_github(BODY)) == (202, "fetch scheduled\n")
    assert hooks.post({"X-Gitlab-Token": SECRET.decode()})[0] == 202
    assert hooks.post({"X-Gitea-Signature": gitea})[0] == 202
    assert hooks.fetches == 3


@pytest.mark.parametrize(
    ("headers", "named"),
    [
        ({}, "no signature: expected one of X-Hub-Signature-256"),
        (_github(BODY, b"guessed"), "X-Hub-Signature-256 does not match"),
        (_github(b"another body"), "X-Hub-Signature-256 does not match"),
        ({"X-Gitlab-Token": "guessed"}, "X-Gitlab-Token does not match"),
        ({"X-Gitea-Signature": "00" * 32}, "X-Gitea-Signature does not match"),
    ],
)
def test_a_forged_or_unsigned_push_is_refused_with_401_and_nothing_fetched(
    hooks: HookServer, headers: dict[str, str], named: str
) -> None:
    status, body = hooks.post(headers)

    assert status == 401
    assert named in body
    assert SECRET.decode() not in body
    assert hooks.fetches == 0


def test_without_a_secret_the_hook_takes_any_push() -> None:
    server = HookServer(None)
    server.server.start()
    try:
        assert server.post({})[0] == 202
    finally:
        server.server.stop()


def test_the_secret_comes_from_a_file_or_the_units_credential(tmp_path: Path) -> None:
    (tmp_path / "webhook-secret").write_bytes(SECRET + b"\n")
    environ = {"CREDENTIALS_DIRECTORY": str(tmp_path)}

    assert read_secret(None, str(tmp_path / "webhook-secret"), "webhook-secret", {}) == SECRET
    assert read_secret(None, None, "webhook-secret", environ) == SECRET
    assert read_secret("inline", None, "webhook-secret", environ) == b"inline"
    assert read_secret(None, None, "notify-secret", environ) is None


class Receiver:
    """An HTTP endpoint that answers 503 `failures` times, then takes every POST."""

    def __init__(self, failures: int = 0) -> None:
        self.failures = failures
        self.attempts = 0
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with receiver.arrived:
                    receiver.attempts += 1
                    failing = receiver.attempts <= receiver.failures
                    if not failing:
                        receiver.received.append((dict(self.headers.items()), body))
                        receiver.arrived.notify_all()
                self.send_response(503 if failing else 204)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                """Quiet."""

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/events"

    def wait_for(self, count: int) -> list[dict[str, object]]:
        with self.arrived:
            assert self.arrived.wait_for(lambda: len(self.received) >= count, DELIVERY_SECONDS)
            for headers, body in self.received:
                expected = "sha256=" + hmac.new(SECRET, body, hashlib.sha256).hexdigest()
                assert headers["X-Signature"] == expected
                assert headers["Content-Type"] == "application/json"
            return [json.loads(body) for _headers, body in self.received]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_an_event_is_retried_with_backoff_until_the_receiver_takes_it() -> None:
    receiver = Receiver(failures=2)
    notifier = Notifier(Delivery(receiver.url, SECRET, attempts=4, first_backoff=0.01))
    notifier.start()
    try:
        notifier.send(StackEvent("failed", "app", "a" * 40, "FAILED", 1.0, reasons=("server: quota",)))
        (event,) = receiver.wait_for(1)
    finally:
        notifier.stop()
        receiver.close()

    assert receiver.attempts == 3
    assert (event["event"], event["stack"], event["commit"], event["severity"]) == (
        "failed",
        "app",
        "a" * 40,
        "error",
    )
    assert event["reasons"] == ["server: quota"]


def test_a_converging_daemon_sends_each_stack_event_signed(tmp_path: Path) -> None:
    _repo, head = sample_repository(tmp_path / "repo")
    (tmp_path / "notify-secret").write_bytes(SECRET)
    receiver = Receiver()
    daemon = DaemonWorld(
        str(tmp_path / "repo"),
        tmp_path / "state",
        notify_url=receiver.url,
        notify_secret_file=str(tmp_path / "notify-secret"),
    )
    assert daemon.daemon.notifier is not None
    daemon.daemon.notifier.start()
    try:
        daemon.follow()
        daemon.converge(["network", "app"], head)
        events = receiver.wait_for(2)
    finally:
        daemon.close()
        receiver.close()

    assert sorted((e["event"], e["stack"], e["commit"]) for e in events) == [
        ("converged", "app", head),
        ("converged", "network", head),
    ]


def test_a_forged_hook_to_the_running_daemon_fetches_nothing_and_a_signed_one_does(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    sample_into(author)
    author.git.push("origin", "main")
    state = tmp_path / "state"
    daemon = DaemonProcess(
        [
            *("--repo", f"file://{remote.working_dir}", "--state-dir", str(state)),
            *("--listen", "127.0.0.1:0", "--fetch-interval", "3600", "--webhook-secret", SECRET.decode()),
        ],
        tmp_path,
        "hooked",
    )
    try:
        daemon.wait_for("READY=1", READY_SECONDS)
        port = re.search(r"listening on http://127\.0\.0\.1:(\d+)", daemon.output())
        assert port is not None, daemon.output()
        url = f"http://127.0.0.1:{port[1]}/hooks/git"
        prod = Path(author.working_tree_dir or ".") / "environments" / "prod.yaml"
        second = commit_files(author, {"environments/prod.yaml": prod.read_text() + "# nudge\n"}, "Nudge")
        author.git.push("origin", "main")
        (cache,) = (path.parent for path in (state / "repositories").rglob("objects") if path.is_dir())

        forged = _post(url, _github(BODY, b"guessed"))
        time.sleep(2.0)  # a fetch the forged hook had scheduled would be done by now
        fetched_after_forgery = _has_commit(cache, second)
        signed = _post(url, _github(BODY))
        give_up = time.monotonic() + DELIVERY_SECONDS
        while not _has_commit(cache, second):
            assert time.monotonic() < give_up, daemon.output()
            time.sleep(0.2)
        assert daemon.terminate() == 0
    finally:
        daemon.close()

    assert forged == 401
    assert not fetched_after_forgery
    assert signed == 202
    assert SECRET.decode() not in daemon.output()


def _post(url: str, headers: dict[str, str]) -> int:
    request = urllib.request.Request(url, data=BODY, headers=headers)
    try:
        with urllib.request.urlopen(request) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code


def _has_commit(cache: Path, commit: str) -> bool:
    try:
        git.Repo(cache).commit(commit)
    except (ValueError, git.BadName):
        return False
    return True
