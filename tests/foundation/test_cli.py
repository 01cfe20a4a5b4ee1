"""The `reconciler` command lists its subcommands, and every one of them is built."""

from __future__ import annotations

import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from reconciler.cli.main import SUBCOMMANDS, cli

EXPECTED = {
    "validate",
    "plan",
    "apply",
    "run",
    "status",
    "outputs",
    "check",
    "retry",
    "sim",
    "db",
    "shards",
    "stacks",
    "approve",
    "abandon",
    "adopt",
    "agent",
}


def test_help_lists_every_subcommand() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    rows = result.output.split("Commands:")[1].splitlines()
    listed = {row.split()[0] for row in rows if row.startswith("  ") and not row.startswith("   ")}
    assert listed == EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_subcommand_is_built_and_explains_itself(name: str) -> None:
    result = CliRunner().invoke(cli, [name, "--help"])
    assert result.exit_code == 0, result.output
    assert "not implemented yet" not in result.output
    assert len(result.output.splitlines()) > 3  # usage, a summary and its options


def test_console_script_runs_as_a_module() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "reconciler.cli.main", "--version"], capture_output=True, text=True, check=True
    )
    assert "reconciler" in completed.stdout


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_listing_says_what_each_command_says_of_itself(name: str) -> None:
    command = cli.get_command(click.Context(cli), name)
    assert command is not None and command.help is not None
    summary = SUBCOMMANDS[name][1].rstrip(".")
    first_words = summary.split(",")[0]  # a summary may end early where the help goes on
    assert " ".join(command.help.split()).startswith(first_words)


def test_help_imports_no_subcommand_engine_or_database() -> None:
    script = (
        "import sys\n"
        "from reconciler.cli.main import cli\n"
        "cli(['--help'], standalone_mode=False)\n"
        "heavy = [m for m in sys.modules if m.startswith(('reconciler.engine', 'sqlalchemy', 'openstack'))]\n"
        "print('HEAVY', heavy)\n"
    )
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert "HEAVY []" in completed.stdout
