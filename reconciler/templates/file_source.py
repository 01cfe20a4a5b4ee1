"""Where template files come from: a repository tree, read through one narrow protocol.

The templates layer never opens files by itself; it is handed a `FileSource` (an
`IdentifiedFileSource` when the files have content ids, as a commit's blobs do). Paths are POSIX
paths relative to the repository root, and nothing outside that tree may ever be read: `..`
escapes, absolute paths, URLs and symlinks pointing outside are refused with a `TemplateError`.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol, runtime_checkable

from reconciler.templates.errors import Problem, TemplateError


class FileSource(Protocol):
    """Reads files of one repository tree by repository-relative POSIX path."""

    def read(self, path: str) -> bytes:
        """The file's bytes; `TemplateError` when it is missing or lies outside the tree."""
        ...


@runtime_checkable
class IdentifiedFileSource(FileSource, Protocol):
    """A `FileSource` that also names a file's exact content without reading it (a git blob id), so
    a document parsed once is found again at any commit holding the same bytes."""

    def blob_id(self, path: str) -> str | None:
        """The id of the content at `path` (symbolic links followed); None when it has none."""
        ...


def outside_tree(path: str, referrer: str, detail: str) -> TemplateError:
    """The error for a path that is not a file inside the repository tree."""
    return TemplateError([Problem(referrer, 0, 0, f"{path!r} {detail}")])


def relative_to(referrer: str, reference: str) -> str:
    """The repository path `reference` names when written inside the file `referrer`.

    Relative references resolve against the referring file's folder, as python-heatclient does;
    `file://` prefixes are accepted for relative paths only. Escapes out of the tree are errors.
    """
    target = reference.removeprefix("file://")
    if "://" in target:
        raise outside_tree(reference, referrer, "is a URL; only files inside the repository can be read")
    if target.startswith("/"):
        raise outside_tree(reference, referrer, "is an absolute path; paths must stay inside the repository")
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(referrer), target))
    if joined == ".." or joined.startswith("../"):
        raise outside_tree(reference, referrer, "escapes the repository tree")
    return joined


class DirectorySource:
    """A `FileSource` over a checkout on disk, refusing anything that resolves outside `root`."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def read(self, path: str) -> bytes:
        normalized = posixpath.normpath(path)
        if normalized.startswith(("/", "../")) or normalized == "..":
            raise outside_tree(path, path, "escapes the repository tree")
        candidate = (self.root / normalized).resolve()
        if not candidate.is_relative_to(self.root):
            raise outside_tree(path, path, "resolves outside the repository tree (a symlink?)")
        try:
            return candidate.read_bytes()
        except FileNotFoundError:
            raise TemplateError([Problem(path, 0, 0, "file not found")]) from None
        except IsADirectoryError:
            raise TemplateError([Problem(path, 0, 0, "is a directory, not a file")]) from None
        except OSError as error:
            raise TemplateError([Problem(path, 0, 0, f"cannot be read: {error.strerror}")]) from None


class MemorySource:
    """A `FileSource` over files held in memory (generated templates, tests, a commit's blobs)."""

    def __init__(self, files: Mapping[str, str | bytes]) -> None:
        self._files = {
            posixpath.normpath(path): content.encode("utf-8") if isinstance(content, str) else content
            for path, content in files.items()
        }

    def read(self, path: str) -> bytes:
        normalized = posixpath.normpath(path)
        if normalized.startswith(("/", "../")) or normalized == "..":
            raise outside_tree(path, path, "escapes the repository tree")
        if normalized not in self._files:
            raise TemplateError([Problem(path, 0, 0, "file not found")])
        return self._files[normalized]
