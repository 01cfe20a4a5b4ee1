"""What `/metrics` reads at a scrape: the stacks this worker runs, counted, with what waits on them.

The stacks come from the board's views (never from the engine's reports, which would wait for the
engine's lock mid-pass); the resources on the shards held (nested stacks' included, each counted by
the worker holding its shard) are counted by the database, not read; the next retry of
a stack's FAILED resources is read back from the reasons its status carries.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence

from reconciler.daemon.metered_clouds import CallMeter
from reconciler.daemon.metrics import StoreSnapshot
from reconciler.daemon.stack_board import StackView
from reconciler.engine.report import parse_failure
from state import Store, WorkStatus

WAITING_WORK = (WorkStatus.READY, WorkStatus.CLAIMED)


def _next_retries(views: Sequence[StackView]) -> dict[str, float]:
    found: dict[str, float] = {}
    for view in views:
        tries = [when for reason in view.reasons if (when := parse_failure(reason).next_try) is not None]
        if tries:
            found[view.stack] = min(tries)
    return found


def scrape_snapshot(
    views: Sequence[StackView], store: Store, shards: Collection[int], meter: CallMeter
) -> StoreSnapshot:
    """The snapshot of one scrape of this worker, which holds `shards`."""
    counts = store.work_counts()
    return StoreSnapshot(
        stacks_by_status=dict(Counter(view.status for view in views)),
        resources_by_status=store.resources_by_status(shards),
        work_queue_depth=sum(counts.by_status.get(status, 0) for status in WAITING_WORK),
        shards_held=len(shards),
        cloud_calls=meter.calls(),
        next_retries=_next_retries(views),
    )
