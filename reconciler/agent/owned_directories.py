"""Temporary directories for a process's sockets, removed when it stops, and by the next process
of their kind when it was killed.

A gateway's sockets live in a directory of their own under the system's temporary directory (a
socket's path must be short). A process killed (SIGKILL, the kernel's out-of-memory killer)
removes nothing, so each directory holds a file its process keeps locked (`flock`) while it
lives: the kernel drops the lock when the process goes, however it goes. Making a directory first
removes those of its kind whose lock nobody holds. A directory is made under a hidden name and
renamed once its lock is held, so no sweep ever sees one whose owner has not locked it yet.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from pathlib import Path

OWNER = ".owner"  # the file locked by the directory's process


class OwnedDirectory:
    """A directory `<tmp>/<prefix>XXXXXXXX`, locked by this process until `remove()`; `shallow`:
    it never holds more than its owner's file, and only that and the directory itself are ever
    removed (a mount point stays: removing what a mount shows would remove the mounted files)."""

    def __init__(self, prefix: str, *, shallow: bool = False) -> None:
        self._shallow = shallow
        sweep(prefix, shallow=shallow)
        while True:
            making = Path(tempfile.mkdtemp(prefix=f".{prefix}"))
            self._lock = os.open(making / OWNER, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
            fcntl.flock(self._lock, fcntl.LOCK_EX)
            self.path = making.with_name(making.name[1:])
            try:
                making.rename(self.path)
                return
            except OSError:  # a directory of that name is there already (one no lock guards)
                os.close(self._lock)
                _remove(making, shallow=True)

    def remove(self) -> None:
        _remove(self.path, self._shallow)
        with contextlib.suppress(OSError):
            os.close(self._lock)


def _remove(directory: Path, shallow: bool) -> None:
    if not shallow:
        shutil.rmtree(directory, ignore_errors=True)
        return
    with contextlib.suppress(OSError):
        (directory / OWNER).unlink()
        directory.rmdir()


def sweep(prefix: str, *, shallow: bool = False) -> None:
    """Remove the directories `<tmp>/<prefix>*` whose owner's lock is not held: their process is gone.
    Those without the owner's file (made before it existed) are left alone."""
    for candidate in Path(tempfile.gettempdir()).glob(f"{prefix}*"):
        try:
            lock = os.open(candidate / OWNER, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # held: its process lives
        else:
            _remove(candidate, shallow)
        finally:
            os.close(lock)
