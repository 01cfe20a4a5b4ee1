"""The status vocabulary (DESIGN.md section 4, point 9) and how a coordinator's state maps onto it."""

from __future__ import annotations

from state.stacks import StackStatus

__all__ = ["AT_REST", "StackStatus", "summarize_status"]

# Converged to what git declares: CONVERGED, or SUSPENDED for a stack declared `state: suspended`.
AT_REST = frozenset({StackStatus.CONVERGED, StackStatus.SUSPENDED})


def summarize_status(
    *,
    complete: bool,
    waiting: bool,
    failed: bool,
    drifted: bool,
    awaiting_approval: bool = False,
    suspended: bool = False,
) -> StackStatus:
    """PROGRESSING (or DEGRADED while repairing drift) as long as anything can still move; then
    PENDING_APPROVAL while an action waits for approval, CONVERGED (SUSPENDED when `suspended`) when
    every resource is settled and nothing failed, FAILED otherwise."""
    if waiting:
        return StackStatus.DEGRADED if drifted else StackStatus.PROGRESSING
    if awaiting_approval and not failed:
        return StackStatus.PENDING_APPROVAL
    if complete and not failed:
        return StackStatus.SUSPENDED if suspended else StackStatus.CONVERGED
    return StackStatus.FAILED
