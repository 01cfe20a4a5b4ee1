"""The `reconciler` command lists its subcommands, and every one of them is built."""

from __future__ import annotations

import subprocess
import sys

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli

EXPECTED = {"validate", "plan", "apply", "run", "status", "outputs", "sim", "db", "shards"}


def test_help_lists_every_subcommand() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    listed = {line.split()[0] for line in result.output.split("Commands:")[1].splitlines() if line.strip()}
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
