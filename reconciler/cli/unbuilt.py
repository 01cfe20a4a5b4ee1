"""Commands whose capability has not landed yet: they say so and exit 2, never pretend."""

from __future__ import annotations

import click

NOT_IMPLEMENTED_EXIT = 2


def unbuilt_command(name: str, summary: str) -> click.Command:
    """A command that explains it is not implemented yet and exits with status 2."""

    @click.command(
        name=name,
        help=f"{summary} (not implemented yet)",
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )
    def command() -> None:
        click.echo(f"reconciler {name}: not implemented yet", err=True)
        raise SystemExit(NOT_IMPLEMENTED_EXIT)

    return command
