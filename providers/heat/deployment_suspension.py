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

A deployment group (`SoftwareDeploymentGroup`, `StructuredDeploymentGroup`) goes through the same
for each member at once (`follow_group_state`): it is suspended once every member is, and a
member's failure is the group's, named by the member's key.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

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


def follow_group_state(members: Sequence[Deployment], follow: Callable[[Deployment], None]) -> None:
    """Take every member of a deployment group to the state `follow` takes one to; returns once all
    are there. Raises `Permanent` naming the members that failed, else `Retryable` while any waits."""
    failed: list[str] = []
    waiting: Retryable | None = None
    for member in members:
        try:
            follow(member)
        except Permanent as error:
            failed.append(f"{member.resource}: {error}")
        except Retryable as error:
            waiting = error
    if failed:
        raise Permanent("; ".join(sorted(failed)))
    if waiting is not None:
        raise waiting


def group_is_suspended(members: Sequence[Deployment], recorded: bool) -> bool:
    """Whether a deployment group counts as suspended: every member is (an empty group: what its
    last suspend or resume `recorded`)."""
    return all(is_suspended(member) for member in members) if members else recorded
