"""`reconciler status`: render the convergence or plan note of a commit.

Every stack declared at the commit is shown: those the commit left alone at the commit they stand
at (the newest noted one before it), those never noted as PENDING.
"""

from __future__ import annotations

from pathlib import Path

import click

from reconciler.cli.commit_argument import commit_argument, open_commit
from reconciler.source.config_keys import declared_stacks, notes_ref_of
from reconciler.source.note_lines import NoteFormatError
from reconciler.source.note_rendering import RENDERERS
from reconciler.source.notes_store import NotesStore
from reconciler.source.stack_positions import stack_positions


@click.command(name="status")
@commit_argument("The git repository holding the commit and its notes.")
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
    repo, files = open_commit(repo_path, rev)
    notes = NotesStore(repo, notes_ref_of(files))
    try:
        lines = notes.read(files.sha)
        positions = stack_positions(repo, notes.notes_ref, files.sha, declared_stacks(files))
    except NoteFormatError as error:
        raise click.ClickException(f"a note under {notes.notes_ref}: {error}") from None
    click.echo(RENDERERS[output_format](files.sha, [*lines, *positions.values()]), nl=False)
