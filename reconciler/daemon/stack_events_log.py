"""One log line per stack event, under the `reconciler.events` logger.

The line reads on its own in the journal (`stack app converged at 1a2b3c4d5e6f: created 3, ...`);
the event's fields ride along as the record's attributes, so the JSON log format carries `event`,
`stack`, `commit`, `status`, `counts` and `reasons` as keys a log pipeline can filter on.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from reconciler.daemon.stack_board import APPROVAL_WAITING, DRIFT_REPAIRED, FAILED, INVALID, StackEvent

EVENTS_LOG = logging.getLogger("reconciler.events")
LEVELS: Mapping[str, int] = {
    FAILED: logging.ERROR,
    INVALID: logging.WARNING,
    APPROVAL_WAITING: logging.WARNING,
}


def event_message(event: StackEvent) -> str:
    """The line a person reads for `event`."""
    at = (event.commit or "?")[:12]
    if event.event == DRIFT_REPAIRED:
        what = ", ".join(event.repaired) or "resources"
        return f"stack {event.stack} drift repaired at {at}: {event.counts.get('repaired', 0)} ({what})"
    counts = ", ".join(f"{name} {count}" for name, count in event.counts.items() if count)
    text = f"stack {event.stack} {event.event} at {at}" + (f": {counts}" if counts else "")
    if event.reasons:
        text += "; " + "; ".join(event.reasons)
    return text


def log_event(event: StackEvent) -> None:
    """Log `event` as one line (its reasons were redacted by the board)."""
    fields = {
        "event": event.event,
        "stack": event.stack,
        "commit": event.commit,
        "status": event.status,
        "counts": dict(event.counts),
        "reasons": list(event.reasons),
        "repaired": list(event.repaired),
    }
    EVENTS_LOG.log(LEVELS.get(event.event, logging.INFO), event_message(event), extra=fields)
