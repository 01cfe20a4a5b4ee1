"""A scaling signal wakes the engine of the process that kept it: no waiting for a poll tick.

Given a converged group whose engine has just read its signals, when an alarm is POSTed to the
policy's `alarm_url`, then the engine's next pass acts on it without time moving on, and a wait
between passes that was about to sleep ends at once.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from reconciler.engine.progress import Progress
from tests.software.software_world import SoftwareWorld, converged_world
from tests.software.test_scaling_scenarios import GROUP, post


@pytest.fixture
def world(tmp_path: Path, sqlite_url: str) -> Iterator[SoftwareWorld]:
    with converged_world(tmp_path, sqlite_url, GROUP) as world:
        yield world


def test_the_pass_after_a_signal_scales_the_group_without_time_moving_on(world: SoftwareWorld) -> None:
    world.engine.step()  # the signals were just read: the next read is a poll interval away
    assert post(world.outputs("web")["up"]) == 200
    before = world.clock.now()
    world.engine.step()
    assert world.clock.now() == before
    assert world.store.scaling().group_sizes("web")["web_group"].size == 3


def test_a_signal_ends_the_wait_between_passes(world: SoftwareWorld) -> None:
    idle = Progress(in_flight=0, busy=False, next_wake=world.clock.now() + 30)
    world.engine.signal_arrived()
    before = world.clock.now()
    world.engine.wait(idle, before + 30)
    assert world.clock.now() == before  # no sleep: the doorbell had rung
    world.engine.wait(idle, before + 30)
    assert world.clock.now() > before  # rung once, answered once
