"""A `FileSource` over one commit's tree: templates read exactly what was committed, no checkout.

Reading from the object database means a daemon never needs a working tree, two commits can be
loaded side by side, and an uncommitted edit in an operator's checkout can never leak into what is
applied. Symlinks committed into the tree are followed only while they stay inside it.
"""

from __future__ import annotations

import posixpath

import git

from reconciler.templates.errors import Problem, TemplateError

SYMLINK_MODE = 0o120000
MAX_SYMLINK_HOPS = 8


def _refused(path: str, message: str) -> TemplateError:
    return TemplateError([Problem(path, 0, 0, message)])


def _inside_tree(path: str) -> str | None:
    normalized = posixpath.normpath(path)
    if normalized.startswith("/") or normalized == ".." or normalized.startswith("../"):
        return None
    return normalized


class CommitFileSource:
    """Files of `commit` by repository-relative POSIX path (the templates layer's
    `IdentifiedFileSource`: a file's blob id names its content)."""

    def __init__(self, repo: git.Repo, commit: str) -> None:
        self.commit = repo.commit(commit)
        self.sha = self.commit.hexsha

    def read(self, path: str) -> bytes:
        data: bytes = self._blob(path).data_stream.read()
        return data

    def blob_id(self, path: str) -> str | None:
        """The blob id of the file at `path`, read from the tree alone (symbolic links followed)."""
        return self._blob(path).hexsha

    def _blob(self, path: str) -> git.Blob:
        """The blob `path` leads to, not read yet (opening its data stream reads all of it)."""
        wanted = path
        for _hop in range(MAX_SYMLINK_HOPS):
            normalized = _inside_tree(wanted)
            if normalized is None:
                raise _refused(path, f"{wanted!r} escapes the repository tree")
            try:
                item = self.commit.tree / normalized
            except KeyError:
                raise _refused(path, f"file not found in commit {self.sha[:12]}") from None
            if item.type == "tree":
                raise _refused(path, "is a directory, not a file")
            if item.type != "blob":
                raise _refused(path, f"is a {item.type}, not a file")
            if item.mode != SYMLINK_MODE:
                return item
            target: bytes = item.data_stream.read()
            wanted = posixpath.join(posixpath.dirname(normalized), target.decode("utf-8", "replace"))
        raise _refused(path, "too many levels of symbolic links")
