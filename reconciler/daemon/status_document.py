"""`GET /status`: every stack declared at the tracked commit, its status and the commit it is at.

The stacks this worker runs come from its board (status, commit, last sync, drift repairs); the
others are read from the shared store's rows (their status and the commit of the generation it
refers to, held elsewhere). A stack the store
does not know yet is PENDING. A resource FAILED for a permanent cause shows its reason and the
time of its next try while it waits (the text the note carries), so an operator sees why and until
when without git.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence

from reconciler import __version__
from reconciler.daemon.stack_board import StackView
from reconciler.engine.report import StackReport, next_try_text
from state import StackStatus
from state.stacks import StackState


def declared_views(
    declared: Sequence[str],
    held: Sequence[StackView],
    read_rows: Callable[[list[str]], Mapping[str, StackState]],
) -> list[StackView]:
    """One view per declared stack, by name: the board's for those this worker runs, the store's
    row (status and the commit it refers to) for the others, PENDING for a stack it does not know."""
    wanted = frozenset(declared)
    views = {view.stack: view for view in held if view.stack in wanted}
    others = [name for name in declared if name not in views]
    rows = read_rows(others) if others else {}
    for name in others:
        row = rows.get(name)
        status = str(row.status) if row is not None else str(StackStatus.PENDING)
        reasons = row.reasons if row is not None else ()
        commit = row.commit if row is not None else None
        views[name] = StackView(name, status, commit, reasons=tuple(reasons), held=False)
    return [views[name] for name in sorted(views)]


def status_document(
    tracked: str | None,
    declared: Sequence[str],
    held: Sequence[StackView],
    read_rows: Callable[[list[str]], Mapping[str, StackState]],
    reports: Mapping[str, StackReport | None] | None = None,
) -> dict[str, object]:
    """The document: the tracked commit and one object per declared stack, by name; a stack this
    worker runs lists its failures, each with its next try while it waits."""
    known = reports or {}
    return {
        "version": __version__,
        "commit": tracked,
        "stacks": [
            _with_failures(view.to_json(), known.get(view.stack))
            for view in declared_views(declared, held, read_rows)
        ],
    }


def _with_failures(body: dict[str, object], report: StackReport | None) -> dict[str, object]:
    if report is not None:
        body["failures"] = [
            {
                "resource": failure.resource,
                "reason": failure.reason,
                **({"next_try": next_try_text(failure.next_try)} if failure.next_try is not None else {}),
            }
            for failure in report.failures
        ]
    return body


def rendered(document: Mapping[str, object]) -> bytes:
    return (json.dumps(document, indent=2, sort_keys=True) + "\n").encode()
