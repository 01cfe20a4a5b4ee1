"""Note lines as one daemon writes them: stamped with its clock and name, redacted, put in the outbox.

Every line the daemon records passes through `record`, which redacts the values of the stack's
hidden parameters from the texts the line carries (a cloud's message could quote one back) and
enqueues it in the state store's outbox, from which the leader writes it into git.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from reconciler.engine.report import StackReport
from reconciler.source.note_lines import CONVERGENCE, PLAN, NoteLine
from reconciler.source.note_publisher import NotesOutbox, outbox_line
from reconciler.source.notes_store import DEFAULT_NOTES_REF
from reconciler.templates.hidden_values import redact
from timekeeping import Clock


class NoteRecorder:
    """Makes and records this daemon's note lines."""

    def __init__(
        self, outbox: NotesOutbox, clock: Clock, writer: str, on_recorded: Callable[[], None]
    ) -> None:
        self.outbox = outbox
        self.clock = clock
        self.writer = writer
        self.on_recorded = on_recorded
        self.notes_ref = DEFAULT_NOTES_REF  # the tracked commit's `notes_ref`, kept current by GitOps
        self.hidden: dict[str, frozenset[str]] = {}  # stack -> values of its hidden parameters

    def convergence(self, stack: str, commit: str, status: str, **extra: Any) -> NoteLine:
        return NoteLine(
            kind=CONVERGENCE,
            stack=stack,
            commit=commit,
            status=status,
            at=self.clock.now(),
            writer=self.writer,
            **extra,
        )

    def plan(self, stack: str, commit: str, status: str, **extra: Any) -> NoteLine:
        return NoteLine(
            kind=PLAN,
            stack=stack,
            commit=commit,
            status=status,
            at=self.clock.now(),
            writer=self.writer,
            **extra,
        )

    def report(self, report: StackReport, *, because: tuple[str, ...] = ()) -> NoteLine:
        """The convergence line of an engine report: status, counts, failures with reasons, and
        `because`: why the stack converged again at the same commit (an upstream output moved, a
        scaling policy scaled a group: "scaled web 2 -> 3 by scale_up")."""
        assert report.commit is not None
        counts = dataclasses.asdict(report.counts)
        failures = tuple(str(failure) for failure in report.failures) + because + report.scalings
        status = str(report.status)
        return self.convergence(
            report.stack, report.commit, status, counts=counts, failures=failures, kept=report.kept
        )

    def _redacted(self, line: NoteLine) -> NoteLine:
        secrets = self.hidden.get(line.stack)
        if not secrets:
            return line
        return dataclasses.replace(
            line,
            failures=tuple(redact(failure, secrets) for failure in line.failures),
            problems=tuple(
                dataclasses.replace(problem, message=redact(problem.message, secrets))
                for problem in line.problems
            ),
        )

    def record(self, lines: Iterable[NoteLine]) -> None:
        """Redact and enqueue `lines` in one outbox write, then say so (the notes loop wakes up)."""
        redacted = [self._redacted(line) for line in lines]
        if redacted:
            self.outbox.enqueue_notes([outbox_line(line, self.notes_ref) for line in redacted])
            self.on_recorded()
