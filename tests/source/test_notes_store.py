"""Notes in real git repositories: written locally, merged with cat_sort_uniq, pushed without force."""

from __future__ import annotations

from pathlib import Path

import git

from reconciler.source.note_lines import NoteLine, newest_per_stack
from reconciler.source.notes_store import NotesStore, Pushed, PushRejected
from reconciler.source.remote_cache import RemoteCache
from tests.source.git_repos import bare_remote, clone, commit_files, init_repository


def convergence(stack: str, commit: str, status: str, at: float, writer: str = "a") -> NoteLine:
    return NoteLine(kind="convergence", stack=stack, commit=commit, status=status, at=at, writer=writer)


def test_a_later_line_replaces_the_earlier_line_of_its_stack(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    sha = commit_files(repo, {"reconciler.yaml": "stacks: {}\n"})
    notes = NotesStore(repo)

    notes.write(convergence("network", sha, "PROGRESSING", at=10.0))
    notes.write(convergence("app", sha, "PROGRESSING", at=10.0))
    notes.write(convergence("network", sha, "CONVERGED", at=12.0))

    assert [(line.stack, line.status) for line in notes.read(sha)] == [
        ("app", "PROGRESSING"),
        ("network", "CONVERGED"),
    ]
    shown = repo.git.log("--notes=reconciler", "-1", sha)
    assert '"status":"CONVERGED"' in shown


def test_a_commit_without_a_note_reads_as_no_lines(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    sha = commit_files(repo, {"README": "x\n"})
    assert NotesStore(repo).read(sha) == []


def test_two_daemons_pushing_notes_to_one_remote_keep_both(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    sha = commit_files(author, {"reconciler.yaml": "stacks: {}\n"})
    author.git.push("origin", "main")

    first = RemoteCache(str(remote.working_dir), tmp_path / "cache-one")
    second = RemoteCache(str(remote.working_dir), tmp_path / "cache-two")
    first.fetch()
    second.fetch()
    first_notes, second_notes = NotesStore(first.repo), NotesStore(second.repo)

    first_notes.write(convergence("network", sha, "CONVERGED", at=20.0, writer="one"))
    second_notes.write(convergence("app", sha, "CONVERGED", at=21.0, writer="two"))
    assert first_notes.push() == Pushed(attempts=1)
    # The second writer's first push is rejected only if it did not merge first: it always does.
    assert isinstance(second_notes.push(), Pushed)

    author.git.fetch("origin", "refs/notes/reconciler:refs/notes/reconciler")
    lines = NotesStore(author).read(sha)
    assert {(line.stack, line.writer) for line in lines} == {("network", "one"), ("app", "two")}
    # and the first writer sees the second's line after its next merge
    first_notes.fetch_merge()
    assert {line.stack for line in first_notes.read(sha)} == {"network", "app"}


def test_concurrent_lines_for_one_stack_resolve_to_the_newest(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    sha = commit_files(author, {"reconciler.yaml": "stacks: {}\n"})
    author.git.push("origin", "main")
    one = NotesStore(RemoteCache(str(remote.working_dir), tmp_path / "c1").repo)
    two = NotesStore(RemoteCache(str(remote.working_dir), tmp_path / "c2").repo)
    one.repo.git.fetch("origin", "+refs/heads/*:refs/remotes/origin/*")
    two.repo.git.fetch("origin", "+refs/heads/*:refs/remotes/origin/*")

    one.write(convergence("network", sha, "PROGRESSING", at=30.0, writer="one"))
    two.write(convergence("network", sha, "CONVERGED", at=31.0, writer="two"))
    one.push()
    two.push()

    merged = two.read(sha)
    assert len(merged) == 2  # cat_sort_uniq keeps both writers' lines
    assert [(line.status, line.writer) for line in newest_per_stack(merged)] == [("CONVERGED", "two")]


def test_a_remote_refusing_every_push_is_reported_not_forced(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    sha = commit_files(author, {"reconciler.yaml": "stacks: {}\n"})
    author.git.push("origin", "main")
    hook = Path(remote.working_dir) / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'notes are read-only here' >&2\nexit 1\n")
    hook.chmod(0o755)
    cache = RemoteCache(str(remote.working_dir), tmp_path / "cache")
    cache.fetch()
    notes = NotesStore(cache.repo)
    notes.write(convergence("network", sha, "CONVERGED", at=1.0))

    outcome = notes.push(attempts=2)

    assert isinstance(outcome, PushRejected)
    assert outcome.attempts == 2
    assert "pre-receive hook declined" in outcome.reason
    try:
        remote.git.rev_parse("--verify", "refs/notes/reconciler")
    except git.GitCommandError:
        pass
    else:
        raise AssertionError("a refused push must leave the remote without the notes ref")
