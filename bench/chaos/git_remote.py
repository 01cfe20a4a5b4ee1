"""The run's repository: a working clone where revisions are committed, pushed to a bare remote
that every daemon follows by URL (`file://`), fetching it as it would fetch a real remote.
"""

from __future__ import annotations

from pathlib import Path

import git

from bench.chaos.workload import Sizes, repository_files


class WorkloadRemote:
    """The bare remote the daemons follow and the clone the suite commits in."""

    def __init__(self, directory: Path, cloud: str) -> None:
        self.cloud = cloud
        self.bare_path = directory / "remote.git"
        git.Repo.init(self.bare_path, bare=True, initial_branch="main")
        self.work = git.Repo.init(directory / "work", initial_branch="main")
        with self.work.config_writer() as config:
            config.set_value("user", "name", "Chaos Suite")
            config.set_value("user", "email", "chaos@reconciler.invalid")
        self.work.create_remote("origin", self.url)

    @property
    def url(self) -> str:
        return self.bare_path.resolve().as_uri()

    def push_revision(self, sizes: Sizes, message: str) -> str:
        """Commit the workload at `sizes` and push it; the new commit's sha."""
        root = Path(self.work.working_tree_dir or ".")
        for path, text in repository_files(sizes, self.cloud).items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
        self.work.git.add(all=True)
        sha = self.work.index.commit(message).hexsha
        self.work.git.push("origin", "main")
        return sha
