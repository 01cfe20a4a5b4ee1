"""A commit is loaded while the engine keeps stepping: only the hand-over takes the daemon's lock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.templates import DocumentCache, Limits
from reconciler.templates.document_cache import ParsedFile
from tests.daemon.gitops_world import DaemonWorld, sample_repository

WAIT_SECONDS = 30.0


class HeldDocuments(DocumentCache):
    """A document cache whose first lookup waits until the test lets it go on."""

    def __init__(self) -> None:
        super().__init__()
        self.loading = threading.Event()
        self.go_on = threading.Event()

    def get(self, blob_id: str, limits: Limits) -> ParsedFile | None:
        self.loading.set()
        self.go_on.wait(WAIT_SECONDS)
        return super().get(blob_id, limits)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[DaemonWorld]:
    sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        yield daemon
    finally:
        daemon.close()


def test_the_engine_steps_and_reports_while_a_commit_loads(world: DaemonWorld) -> None:
    gitops = world.daemon.gitops
    held = gitops.ahead.documents = HeldDocuments()
    follower = threading.Thread(target=gitops.follow)
    follower.start()
    try:
        assert held.loading.wait(WAIT_SECONDS)
        stepper = threading.Thread(target=gitops.converge)
        stepper.start()
        stepper.join(WAIT_SECONDS)
        assert not stepper.is_alive()  # the engine's lock was free while the templates loaded
        assert gitops.reports() == {}  # and nothing was handed over yet
    finally:
        held.go_on.set()
        follower.join(WAIT_SECONDS)
    assert set(gitops.reports()) == {"network"}  # app waits for network's outputs
    assert held.parses > 0
