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
    """Files of `commit` by repository-relative POSIX path (the templates layer's `FileSource`)."""

    def __init__(self, repo: git.Repo, commit: str) -> None:
        self.commit = repo.commit(commit)
        self.sha = self.commit.hexsha

    def read(self, path: str) -> bytes:
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
            data: bytes = item.data_stream.read()
            if item.mode != SYMLINK_MODE:
                return data
            wanted = posixpath.join(posixpath.dirname(normalized), data.decode("utf-8", "replace"))
        raise _refused(path, "too many levels of symbolic links")
