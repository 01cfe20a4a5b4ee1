"""What `reconciler run` and `reconciler apply` set once set up: the collector and the switch interval."""

from __future__ import annotations

import gc
import sys
from collections.abc import Iterator

import pytest

from reconciler.daemon.collector import (
    FIRST_GENERATION_THRESHOLD,
    OLDER_GENERATIONS,
    SWITCH_INTERVAL,
    tune_process,
)


@pytest.fixture
def restored() -> Iterator[None]:
    """The interpreter's settings put back as they were: they are process-wide."""
    thresholds, interval = gc.get_threshold(), sys.getswitchinterval()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)
    sys.setswitchinterval(interval)


@pytest.mark.usefixtures("restored")
def test_tuning_freezes_what_is_alive_and_sets_the_thresholds_and_the_switch_interval() -> None:
    sys.setswitchinterval(0.005)

    tune_process()

    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == (FIRST_GENERATION_THRESHOLD, *OLDER_GENERATIONS)
    assert sys.getswitchinterval() == pytest.approx(SWITCH_INTERVAL)
