"""A software deployment through its stack's suspend and resume (Heat's SUSPEND and RESUME actions).

A deployment listing SUSPEND runs its config again with `deploy_action` SUSPEND when its stack is
suspended, and is suspended once that run is signalled; one listing RESUME runs it with RESUME
when the stack is resumed. A deployment listing neither is suspended or resumed at once, running
nothing. A run under way answers `Retryable` (the engine asks again), as a server on its way to
SUSPENDED does; a run that failed, or got no signal within the deployment's time limit, is the
deployment's failure (its status FAILED, with the reason). The engine suspends a server only once
the deployments to it are suspended, so the SUSPEND config runs on a server still running.

Each run has an entry id of its own (a stack suspended twice runs the config twice), and keeps
the deployment's outputs until its signal brings new ones.
"""

from __future__ import annotations

import dataclasses

from providers.heat.agent_links import AgentLinks, new_token
from providers.heat.derived_config import rerun_entry
from providers.heat.software_records import (
    COMPLETE,
    FAILED,
    IN_PROGRESS,
    Deployment,
    SoftwareRecords,
    token_digest,
)
from providers.interface import Permanent, Retryable

SUSPEND, RESUME = "SUSPEND", "RESUME"
RUN_POLL = 2.0  # seconds between asks of a suspend or resume waiting for its run's signal
NO_SIGNAL = "NO_SIGNAL"


def is_suspended(row: Deployment) -> bool:
    """Whether the deployment counts as suspended: its SUSPEND done, or its RESUME not done yet."""
    return (row.action == SUSPEND and row.status == COMPLETE) or (
        row.action == RESUME and row.status != COMPLETE
    )


def follow_state(
    records: SoftwareRecords,
    links: AgentLinks,
    row: Deployment,
    action: str,
    *,
    now: float,
    deadline: float,
    failure: str | None,
) -> None:
    """Take the deployment to `action` (SUSPEND or RESUME); returns once it is there.

    Raises `Retryable` while its run for `action` waits for a signal, `Permanent` when that run failed.
    """
    if row.action == action:
        if row.status == COMPLETE:
            return
        if failure is not None or row.status == FAILED:
            raise Permanent(failure or f"Deployment to server failed: {row.status_reason}")
        raise Retryable(f"waiting for the signal of its {action} run", after=RUN_POLL)
    runs = action in row.actions and bool(row.entry)
    signalled = runs and _transport(row) != NO_SIGNAL
    token = new_token() if signalled else None
    entry = (
        rerun_entry(
            row.entry, row.id, action, links.signal_url(token) if token else None, f"{row.config_hash}:{now}"
        )
        if runs
        else row.entry
    )
    records.put_deployment(
        dataclasses.replace(
            row,
            action=action,
            status=IN_PROGRESS if signalled else COMPLETE,
            status_reason="Deploy data available" if signalled else f"Not waiting for a {action} signal",
            entry=entry,
            deadline=deadline if signalled else None,
            published=row.published or runs,
        ),
        token_digest(token) if token else None,
    )
    if signalled:
        raise Retryable(f"running its {action} config on the server", after=RUN_POLL)


def _transport(row: Deployment) -> str | None:
    inputs = {item["name"]: item.get("value") for item in row.entry.get("inputs") or []}
    value = inputs.get("deploy_signal_transport")
    return None if value is None else str(value)
