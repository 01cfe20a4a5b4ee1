"""Resources FAILED for a permanent cause, tried again on a slow capped backoff, or at once when asked.

A transient failure (5xx, timeout, 429) is retried per call on the quick backoff (`backoff`). A
permanent one (403, quota, bad request, or transient ones given up on) would fail again straight
away, so the resource waits minutes, doubling up to an hour (`EngineSettings.failed_backoff`),
while its stack reports FAILED with the reason and the time of the next try. `retry_now` brings
the wait forward: a person's `reconciler retry`, SIGHUP to the daemon, any new commit.

Escalations (no right action exists: a data volume vanished, an external resource gone, a
resource still failing after its replacements) wait for a person: only a person's ask
(`escalated=True`) retries them. A nested stack's resource fails because its child did: it is
retried when the child's status moves (`NestedChildren.changed`), not on a schedule of its own.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from reconciler.engine.resource_state import RecordStatus

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun


class FailureRetries:
    """The slow schedule of one stack's FAILED resources (the times live in `PassSummary.next_tries`)."""

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self._tries: Counter[str] = Counter()  # slow retries so far, per resource, at this generation

    def reset(self) -> None:
        """A new generation decides every resource afresh: no failure is waiting any more."""
        self._tries = Counter()

    def schedule(self, now: float) -> None:
        """Give each resource that failed, and waits for no person, the time of its next try."""
        run = self._run
        summary = run.summary
        waiting = summary.next_tries
        for name in summary.failed_resources(run.resources.graph):
            if name in waiting or summary.escalated(name) or self._nested(name):
                continue
            self._tries[name] += 1
            settings = run.context.settings
            waiting[name] = now + settings.failed_backoff.delay(self._tries[name], None, run.context.random)

    def due(self, now: float) -> None:
        """Retry the resources whose next try has come."""
        waiting = self._run.summary.next_tries
        for name in [name for name, when in waiting.items() if when <= now]:
            self._retry(name, escalated=False)

    def retry_now(self, resource: str | None, now: float, *, escalated: bool) -> int:
        """Retry every FAILED resource (or `resource`) at once, escalated ones too when a person asks;
        retries and deletes waiting on the quick backoff are brought forward as well. How many
        failed resources are decided again."""
        run = self._run
        summary = run.summary
        names = [
            name
            for name in summary.failed_resources(run.resources.graph)
            if (resource is None or name == resource) and (escalated or not summary.escalated(name))
        ]
        for name in names:
            self._retry(name, escalated=escalated)
        run.resources.retry_now(now, None if resource is None else {resource})
        return len(names)

    def inputs_moved(self, dependents: tuple[str, ...]) -> None:
        """A resource these depend on settled with new values: those waiting after a failure are
        decided again at once, since what they failed on (a server id that vanished, say) moved."""
        run = self._run
        summary = run.summary
        for name in dependents:
            if name in summary.next_tries and not summary.escalated(name):
                self._retry(name, escalated=False)

    def succeeded(self, name: str) -> None:
        """`name` settled: its next failure starts the slow schedule from the beginning."""
        self._tries.pop(name, None)
        self._run.summary.next_tries.pop(name, None)

    def next_wake(self) -> float | None:
        waiting = self._run.summary.next_tries
        return min(waiting.values()) if waiting else None

    def _nested(self, name: str) -> bool:
        definition = self._run.definition
        resource = definition.resources.get(name) if definition is not None else None
        return resource is not None and resource.nested_kind is not None

    def _retry(self, name: str, *, escalated: bool) -> None:
        run = self._run
        summary = run.summary
        summary.next_tries.pop(name, None)
        summary.failure_over(name)
        if escalated:
            summary.escalation_over(name)
        state = run.resources.records.get(name)
        if state is not None and state.status is RecordStatus.FAILED:
            # A create may have landed before the failure: the next one still adopts by marker
            # first, and a resource that gave up after its quick retries gets them again.
            state.attempts = min(state.attempts, 1)
        run.resources.unsettle(name)
        run.summary.status_changed()
