"""`reconciler run` refuses bad input with a clear message before it starts serving."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from reconciler.cli.main import cli
from tests.source.git_repos import init_repository


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--repo", "{tmp}/missing"], "missing: not a git repository"),
        (["--repo", "{tmp}/repo", "--listen", "localhost"], "--listen 'localhost': expected HOST:PORT"),
        (["--repo", "{tmp}/repo", "--sim-latency", "fast"], "sim_latency 'fast': expected seconds"),
        (["--config", "{tmp}/absent.toml"], "absent.toml: cannot be read"),
        (["--repo", "{tmp}/repo", "--workers", "0"], "Invalid value for '--workers'"),
    ],
)
def test_bad_input_is_named(tmp_path: Path, arguments: list[str], message: str) -> None:
    (tmp_path / "state").mkdir()
    init_repository(tmp_path / "repo")
    args = [argument.replace("{tmp}", str(tmp_path)) for argument in arguments]
    result = CliRunner().invoke(cli, ["run", *args, "--state-dir", str(tmp_path / "state")])
    assert result.exit_code != 0
    assert message in result.output
