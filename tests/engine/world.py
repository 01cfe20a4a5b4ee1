"""A scenario's world, as plain importable Python: a git repository, a simulated cloud, a store, an engine.

Everything is real: templates load from a real git checkout, the store is SQLite or the real
PostgreSQL, the cloud is the simulated cloud's provider, and time is a stepped clock that the
engine's sleeper advances, so a test waits for nothing.
"""

from __future__ import annotations

import random
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import git

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.faults import Faults
from providers.simulated.provider import SimulatedProvider
from providers.simulated.settings import CloudSettings
from reconciler.daemon.clouds import CloudRoot
from reconciler.engine import (
    DesiredGeneration,
    Engine,
    EngineSettings,
    Policy,
    SoleWorkerLeases,
    StackReport,
)
from reconciler.templates.adopt_data import Adoption
from reconciler.templates.file_source import DirectorySource
from reconciler.templates.loading import load_stack
from state.store import Store, open_store
from timekeeping.testing import SteppedClock

TEST_SETTINGS = EngineSettings(pool_size=4, readiness_poll=1.0, call_deadline=60.0, ready_deadline=120.0)


def scenario_repo(repo_dir: Path) -> git.Repo:
    """A new git repository at `repo_dir` (branch main) whose commits are the scenario's."""
    repo = git.Repo.init(repo_dir, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Scenario")
        config.set_value("user", "email", "scenario@reconciler.invalid")
    return repo


class World:
    """Given a repository and a cloud: commit templates, converge, look at the cloud and the store."""

    def __init__(
        self,
        root: Path,
        database_url: str,
        *,
        cloud: CloudSettings | None = None,
        faults: Faults | None = None,
        settings: EngineSettings = TEST_SETTINGS,
        worker: str = "worker-a",
        self_heal: bool = True,
        observe_interval: float = 60.0,
        calls_take_engine_time: bool = False,
        store_seen_as: Callable[[Store], Store] | None = None,
    ) -> None:
        """`store_seen_as`: what the workers are handed for the store (a flaky one, say)."""
        self.root = root
        self.clock = SteppedClock()
        self.repo_dir = root / "repo"
        self.repo_dir.mkdir(parents=True, exist_ok=True)
        self.repo = scenario_repo(self.repo_dir)
        self.cloud = SimulatedCloud(
            cloud or CloudSettings(),
            faults=faults,
            clock=self.clock.now,
            # A call's latency either moves the clock itself or waits for the engine to move it.
            sleep=self.clock.wait if calls_take_engine_time else self.clock.sleep,
            random_source=random.Random(11),
        )
        self.sim = SimulatedProvider(self.cloud)
        self.database_url = database_url
        self.settings = settings
        self.policy = Policy("sim", self_heal, True, observe_interval)
        self.store: Store = open_store(database_url, clock=self.clock)
        if store_seen_as is not None:
            self.store = store_seen_as(self.store)
        self.engine = self.start_worker(worker)
        self.commits: list[str] = []

    def start_worker(self, worker: str) -> Engine:
        """A worker (engine) holding every shard it can get, on this world's store and cloud."""
        leases = SoleWorkerLeases(self.store, worker, self.clock)
        for shard in range(self.store.settings.shard_count):
            leases.want(shard)
        self.leases = leases
        return Engine(
            self.store,
            CloudRoot(self.clock, sim=self.sim),
            self.clock,
            worker,
            leases=leases,
            sleeper=self.clock,
            random=random.Random(5),
            settings=self.settings,
        )

    def rejoin(self) -> None:
        """Take again every shard this worker lost (as a daemon's shard keeper does on its next tick)."""
        for shard in range(self.store.settings.shard_count):
            self.leases.want(shard)

    def close(self) -> None:
        self.clock.release()
        self.engine.close()
        self.store.close()

    # given
    def commit(self, files: dict[str, str], message: str = "change") -> str:
        for path, text in files.items():
            target = self.repo_dir / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
        self.repo.git.add(A=True)
        sha = self.repo.index.commit(message).hexsha
        self.commits.append(sha)
        return sha

    def remove(self, *paths: str) -> None:
        for path in paths:
            (self.repo_dir / path).unlink()

    # when
    def submit(
        self,
        stack: str,
        template: str,
        parameters: dict[str, Any] | None = None,
        *,
        adoption: Adoption | None = None,
    ) -> int | None:
        """`adoption`: existing resources taken instead of created (Heat's adopt)."""
        definition = load_stack(
            DirectorySource(self.repo_dir), template, parameters=parameters or {}, stack_name=stack
        )
        commit = self.repo.head.commit.hexsha
        return self.engine.submit(stack, DesiredGeneration(commit, self.policy, definition, adoption))

    def converge(self, *stacks: str, within: float = 3_600.0) -> dict[str, StackReport]:
        return self.engine.converge(stacks, self.clock.now() + within)

    def take_over(self, stack: str, template: str, worker: str = "worker-b") -> StackReport:
        """The worker so far is gone (no pass, no renewal, its lease expired): `worker` takes the
        stack over, is given `template` for it, and converges it."""
        self.clock.sleep(self.store.settings.lease_seconds + 1)
        self.engine = self.start_worker(worker)
        self.submit(stack, template)
        return self.converge(stack)[stack]

    def pass_time(self, seconds: float, *stacks: str) -> dict[str, StackReport]:
        """Let `seconds` of engine time go by, stepping the engine the whole way."""
        until = self.clock.now() + seconds
        while self.clock.now() < until:
            self.engine.step()
            self.clock.sleep(min(1.0, until - self.clock.now()))
        return self.converge(*stacks)

    def step_until(self, condition: Callable[[], bool], *, passes: int = 200) -> None:
        """Run passes (a second of engine time each, calls allowed to come back) until `condition`."""
        for _ in range(passes):
            if condition():
                return
            self.engine.step()
            self.engine.wait_for_calls()
            self.clock.sleep(1.0)
        raise AssertionError(f"still not true after {passes} passes")

    # then
    def outputs(self, stack: str) -> dict[str, Any]:
        return self.store.read_outputs(stack)

    def records(self, stack: str) -> dict[str, Any]:
        return {record.logical_name: record for record in self.store.read_records(stack)}

    def live(self, collection: str) -> list[dict[str, Any]]:
        self.cloud.count(collection)  # brings the cloud up to the clock, as any call would
        return [dict(item) for item in self.cloud.world.inventory(collection)]
