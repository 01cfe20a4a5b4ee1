"""Small real repositories of one stack on the simulated cloud, driven through the `reconciler` CLI."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from click.testing import CliRunner, Result

from reconciler.cli.main import cli
from tests.source.git_repos import commit_files, init_repository

CONFIG = """branch: main
defaults: {cloud: sim}
stacks:
  demo:
    template: stack.yaml
"""


class OneStackRepository:
    """A git repository holding one stack `demo` (stack.yaml plus any other files), and a database."""

    def __init__(self, root: Path, files: Mapping[str, str]) -> None:
        self.path = root / "repo"
        self.database = f"sqlite:///{root / 'state.sqlite'}"
        self.repo = init_repository(self.path)
        commit_files(self.repo, {"reconciler.yaml": CONFIG, **files}, "First")
        self.runner = CliRunner()

    def commit(self, files: Mapping[str, str], message: str = "change") -> str:
        return commit_files(self.repo, files, message)

    def run(self, *arguments: str) -> Result:
        return self.runner.invoke(cli, [*arguments, "--repo", str(self.path), "--database", self.database])

    def plan(self) -> Result:
        return self.run("plan", "--format", "json")

    def apply(self) -> Result:
        return self.run("apply")
