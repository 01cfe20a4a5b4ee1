"""The `reconciler` command: one group, one module per subcommand (`<name>_command.py`)."""

from __future__ import annotations

import click

from reconciler import __version__
from reconciler.cli import (
    apply_command,
    check_command,
    db_command,
    outputs_command,
    plan_command,
    run_command,
    shards_command,
    sim_command,
    status_command,
    validate_command,
)

SUBCOMMANDS = (
    validate_command,
    plan_command,
    apply_command,
    run_command,
    status_command,
    outputs_command,
    check_command,
    sim_command,
    db_command,
    shards_command,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reconciler")
def cli() -> None:
    """Keep OpenStack clouds converged to the Heat templates kept in a git repository."""


for _module in SUBCOMMANDS:
    cli.add_command(_module.command)


def main() -> None:
    """Console-script entry point."""
    cli(prog_name="reconciler")


if __name__ == "__main__":
    main()
