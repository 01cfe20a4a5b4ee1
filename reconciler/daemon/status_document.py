"""`GET /status`: the stacks this daemon converges, their status and what failed, as JSON.

A resource FAILED for a permanent cause shows its reason and the time of its next try while it
waits (the same text the note carries), so an operator sees why and until when without git.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping

from reconciler.engine.report import StackReport, next_try_text


def status_document(
    tracked: str | None, reports: Mapping[str, StackReport | None], holds: Callable[[str], bool]
) -> bytes:
    """The JSON body: the tracked commit and, per stack, status, commit, failures and next tries."""
    stacks = {}
    for name, report in sorted(reports.items()):
        if report is None:
            continue
        stacks[name] = {
            "status": str(report.status),
            "commit": report.commit,
            "held_here": holds(name),
            "failures": [
                {
                    "resource": failure.resource,
                    "reason": failure.reason,
                    **({"next_try": next_try_text(failure.next_try)} if failure.next_try is not None else {}),
                }
                for failure in report.failures
            ],
        }
    return (json.dumps({"tracked": tracked, "stacks": stacks}, indent=2, sort_keys=True) + "\n").encode()
