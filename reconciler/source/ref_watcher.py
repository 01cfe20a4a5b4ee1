"""Watching a local repository's refs with watchdog, so a commit or push is seen at once.

Git moves a ref by writing `<ref>.lock` and renaming it over the ref, and `git pack-refs` rewrites
`packed-refs`; the watcher listens for changes under `refs/` and to `packed-refs` and `HEAD`, and
calls back with no argument: the caller re-reads the heads (cheap) rather than trusting events,
which can coalesce or arrive for lock files only. Notes refs (`refs/notes/`) are ignored: they
move whenever the daemon writes a note. (A notes ref kept in `packed-refs` still wakes it; the
extra pass finds nothing new.)
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver

WATCHED_FILES = ("packed-refs", "HEAD", "FETCH_HEAD")


class _RefEvents(FileSystemEventHandler):
    def __init__(self, git_dir: Path, on_change: Callable[[], None]) -> None:
        self.refs_dir = str(git_dir / "refs")
        self.notes_dir = str(git_dir / "refs" / "notes")
        self.files = {str(git_dir / name) for name in WATCHED_FILES}
        self.on_change = on_change

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in ("opened", "closed_no_write"):
            return
        if event.is_directory and event.event_type == "modified":
            return  # a folder gaining an entry: the entry's own event follows
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            path = raw.decode() if isinstance(raw, bytes) else raw
            if path.startswith(self.notes_dir):
                continue  # the daemon's own notes moving is no news
            if path.startswith(self.refs_dir) or path in self.files:
                self.on_change()
                return


class RefWatcher:
    """Calls `on_change` (from watchdog's thread) whenever a ref of the repository may have moved."""

    def __init__(self, git_dir: Path, on_change: Callable[[], None]) -> None:
        self.git_dir = git_dir
        self._observer: BaseObserver = Observer()
        handler = _RefEvents(git_dir, on_change)
        self._observer.schedule(handler, str(git_dir), recursive=False)
        self._observer.schedule(handler, str(git_dir / "refs"), recursive=True)

    def start(self) -> None:
        self._observer.start()

    def stop(self) -> None:
        self._observer.stop()
        self._observer.join(timeout=5)
