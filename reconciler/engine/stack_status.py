"""The status vocabulary (DESIGN.md section 4, point 9) and how a coordinator's state maps onto it."""

from __future__ import annotations

from state.stacks import StackStatus

__all__ = ["StackStatus", "summarize_status"]


def summarize_status(
    *, complete: bool, waiting: bool, failed: bool, drifted: bool, awaiting_approval: bool = False
) -> StackStatus:
    """PROGRESSING (or DEGRADED while repairing drift) as long as anything can still move; then
    PENDING_APPROVAL while an action waits for approval, CONVERGED when every resource is settled
    and nothing failed, FAILED otherwise."""
    if waiting:
        return StackStatus.DEGRADED if drifted else StackStatus.PROGRESSING
    if awaiting_approval and not failed:
        return StackStatus.PENDING_APPROVAL
    if complete and not failed:
        return StackStatus.CONVERGED
    return StackStatus.FAILED
