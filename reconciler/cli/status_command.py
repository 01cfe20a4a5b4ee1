"""`reconciler status`: render the convergence or plan note of a commit."""

from __future__ import annotations

from pathlib import Path

import click
import git

from reconciler.source.commit_files import CommitFileSource
from reconciler.source.config_keys import notes_ref_of
from reconciler.source.note_lines import NoteFormatError
from reconciler.source.note_rendering import RENDERERS
from reconciler.source.notes_store import NotesStore


@click.command(name="status")
@click.argument("rev", default="HEAD")
@click.option(
    "--repo",
    "repo_path",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The git repository holding the commit and its notes.",
)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(sorted(RENDERERS)),
    default="text",
    show_default=True,
    help="text for a terminal, markdown for a pull-request comment (under 65,000 characters), json.",
)
def command(rev: str, repo_path: Path, output_format: str) -> None:
    """Render the convergence or plan note of REV (default HEAD)."""
    try:
        repo = git.Repo(repo_path, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise click.ClickException(f"{repo_path}: not a git repository") from None
    try:
        files = CommitFileSource(repo, rev)
    except (git.BadName, ValueError):
        raise click.ClickException(f"{rev}: no such commit in {repo_path}") from None
    notes = NotesStore(repo, notes_ref_of(files))
    try:
        lines = notes.read(files.sha)
    except NoteFormatError as error:
        raise click.ClickException(f"the note of {files.sha[:12]} under {notes.notes_ref}: {error}") from None
    click.echo(RENDERERS[output_format](files.sha, lines), nl=False)
