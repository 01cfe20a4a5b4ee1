"""The `reconciler` command lists its subcommands; one not built yet says so and exits 2."""

from __future__ import annotations

import subprocess
import sys

from click.testing import CliRunner

from reconciler.cli.main import SUBCOMMANDS, cli

EXPECTED = {"validate", "plan", "apply", "run", "status", "outputs", "sim", "db", "shards"}


def test_help_lists_every_subcommand() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()}
    assert listed == EXPECTED


def test_unbuilt_subcommands_exit_2_and_say_so() -> None:
    unbuilt = [
        module.command for module in SUBCOMMANDS if "not implemented yet" in (module.command.help or "")
    ]
    for command in unbuilt:
        result = CliRunner().invoke(cli, [str(command.name), "anything", "--flag"])
        assert result.exit_code == 2, command.name
        assert "not implemented yet" in result.output


def test_console_script_runs_as_a_module() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "reconciler.cli.main", "--version"], capture_output=True, text=True, check=True
    )
    assert "reconciler" in completed.stdout
