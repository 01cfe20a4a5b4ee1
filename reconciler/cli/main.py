"""The `reconciler` command: one group, one module per subcommand (`<name>_command.py`).

Subcommand modules are imported only when their command runs: most of them pull in the engine,
SQLAlchemy and the cloud providers, which `reconciler --help` and `reconciler status` need not pay
for. The group's listing reads the one-line summaries from `SUBCOMMANDS` instead; a test holds them
equal to each command's own.
"""

from __future__ import annotations

import importlib

import click

from reconciler import __version__
from reconciler.cli.failures import run_explaining_failures

# name -> (module under reconciler.cli, the summary `reconciler --help` shows), in listing order
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "validate": ("validate_command", "Validate a Heat template and its environments."),
    "plan": ("plan_command", "Compute and print the plan of REV (default HEAD), applying nothing."),
    "apply": ("apply_command", "Converge the repository's HEAD once and exit."),
    "run": ("run_command", "Run the GitOps daemon: follow the repository and keep its stacks converged."),
    "status": ("status_command", "Render the convergence or plan note of REV (default HEAD)."),
    "stacks": ("stacks_command", "List every stack with its status and the commit it is at."),
    "outputs": ("outputs_command", "Print a stack's outputs."),
    "approve": (
        "approve_command",
        "Approve the replacements and deletions REV waits on.",
    ),
    "check": ("check_command", "Observe every resource of STACK now and report each."),
    "retry": ("retry_command", "Try the FAILED resources of STACK (or only RESOURCE) again now."),
    "abandon": (
        "abandon_command",
        "Stop managing STACK (nothing deleted) and print its abandon data as JSON.",
    ),
    "adopt": ("adopt_command", "Take existing resources under management as STACK, creating nothing."),
    "sim": ("sim_command", "Serve the simulated OpenStack cloud."),
    "db": ("db_command", "Manage the state database."),
    "shards": ("shards_command", "Show who holds which shard, at which epoch and until when."),
    "agent": (
        "agent_command",
        "Poll a server's deployments, run each new one once (heat-config's script hook), signal back.",
    ),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported when they are run or asked for their own help."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(SUBCOMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        entry = SUBCOMMANDS.get(cmd_name)
        if entry is None:
            return None
        command: click.Command = importlib.import_module(f"reconciler.cli.{entry[0]}").command
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, summary) for name, (_, summary) in SUBCOMMANDS.items()])


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="reconciler")
@click.option("--debug", is_flag=True, help="Show a traceback instead of a one-line error.")
def cli(debug: bool) -> None:
    """Keep OpenStack clouds converged to the Heat templates kept in a git repository."""


def main() -> None:
    """Console-script entry point: an expected failure is one line (reconciler.cli.failures)."""
    run_explaining_failures(cli, prog_name="reconciler")


if __name__ == "__main__":
    main()
