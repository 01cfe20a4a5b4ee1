"""`make demo`: the main job on the embedded defaults, from a throw-away copy of `samples-repo/`.

It makes a fresh git repository from `samples-repo/`, commits it, and then runs what the product can
do today on SQLite and the simulated cloud, printing what happened. Each stage says plainly when a
capability it needs has not landed yet, and stops there.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import click
import git
import yaml

SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"


def make_sample_repository(destination: Path) -> git.Repo:
    """A git repository at `destination` holding one commit of `samples-repo/` on `main`."""
    shutil.copytree(SAMPLES, destination, dirs_exist_ok=True)
    repo = git.Repo.init(destination, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Reconciler Demo")
        config.set_value("user", "email", "demo@reconciler.invalid")
    repo.git.add(A=True)
    repo.index.commit("Add the sample stacks")
    return repo


@click.command()
@click.option("--keep", is_flag=True, help="Keep the throw-away repository and print its path.")
def demo(keep: bool) -> None:
    """Run the main job on a throw-away repository made from samples-repo/."""
    workdir = Path(tempfile.mkdtemp(prefix="reconciler-demo-"))
    try:
        repo = make_sample_repository(workdir / "repo")
        click.echo(f"demo: made a git repository from samples-repo/ at commit {repo.head.commit.hexsha[:12]}")
        config = yaml.safe_load((workdir / "repo" / "reconciler.yaml").read_text())
        for name, stack in config["stacks"].items():
            click.echo(f"demo: stack {name}: template {stack['template']}")
        click.echo(
            "demo: stopped here: template validation and the convergence engine have not landed yet, "
            "so nothing was validated or applied."
        )
    finally:
        if keep:
            click.echo(f"demo: repository kept at {workdir / 'repo'}")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    demo()
