"""A gateway's socket directory goes with its process: removed at `remove()`, and by the next
directory of its kind made once the process that held it was killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

from reconciler.agent.owned_directories import OwnedDirectory

HOLD = """
import sys, time
from reconciler.agent.owned_directories import OwnedDirectory
directory = OwnedDirectory(sys.argv[1], shallow=sys.argv[2:] == ["shallow"])
(directory.path / "api.sock").touch()
print(directory.path, flush=True)
time.sleep(600)
"""


def held_by_a_process(prefix: str, *how: str) -> tuple[subprocess.Popen[str], Path]:
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, prefix, *how],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert process.stdout is not None
    return process, Path(process.stdout.readline().strip())


def test_a_directory_is_removed_with_its_sockets() -> None:
    directory = OwnedDirectory(f"test-owned-{uuid.uuid4().hex[:8]}-")
    (directory.path / "api.sock").touch()
    directory.remove()
    assert not directory.path.exists()


def test_a_killed_processs_directory_is_removed_by_the_next_and_a_live_ones_is_kept() -> None:
    prefix = f"test-owned-{uuid.uuid4().hex[:8]}-"
    killed, left = held_by_a_process(prefix)
    living, kept = held_by_a_process(prefix)
    try:
        os.kill(killed.pid, signal.SIGKILL)
        killed.wait(10)
        assert (left / "api.sock").exists()  # nothing of it was removed by the process itself

        made = OwnedDirectory(prefix)

        assert not left.exists()
        assert (kept / "api.sock").exists()
        assert made.path.name.startswith(prefix) and made.path.parent == Path(tempfile.gettempdir())
        made.remove()
    finally:
        living.kill()
        living.wait(10)
    OwnedDirectory(prefix).remove()
    assert not kept.exists()


def test_a_directory_of_its_kind_without_an_owner_is_left_alone() -> None:
    prefix = f"test-owned-{uuid.uuid4().hex[:8]}-"
    foreign = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        OwnedDirectory(prefix).remove()
        assert foreign.is_dir()
    finally:
        foreign.rmdir()


def test_a_shallow_directory_is_swept_of_its_owners_file_alone() -> None:
    """The host view's directory: a sweep never removes what is in it beyond its owner's file (a
    mount there would show the host's root)."""
    prefix = f"test-owned-{uuid.uuid4().hex[:8]}-"
    killed, left = held_by_a_process(prefix, "shallow")
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait(10)
    try:
        OwnedDirectory(prefix, shallow=True).remove()
        assert (left / "api.sock").exists()
        assert not (left / ".owner").exists()
    finally:
        (left / "api.sock").unlink()
        left.rmdir()
