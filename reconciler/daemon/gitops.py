"""The GitOps loop: tracked commits become generations, reports become notes, PR heads get plans.

Three passes, each run by the service on its own schedule:

- `follow` reads the heads (after a fetch, for a remote). A new tracked commit is first admitted
  by the trust policy (`reconciler.source.commit_trust`): one not signed as it requires is noted
  UNVERIFIED and nothing of it is applied, and the newest admitted commit of the push is taken
  instead. An admitted tracked commit is read as desired state: an invalid `reconciler.yaml`
  makes the whole commit INVALID (nothing applied, the last
  good generations kept); otherwise only the stacks it touches are loaded and submitted to the
  engine, in wiring order (a stack reading another's outputs waits until that one converged). A
  stack whose template is wrong is INVALID on that commit and keeps its last good generation.
  Any new commit retries the resources FAILED for a permanent cause at once. On every pass, the
  stacks the database holds resources of that HEAD no longer declares are removed (when they
  prune), whichever commits this daemon saw. New pull-request heads get a plan note per touched
  stack.
- `converge` runs one engine step and turns changed stack reports into note lines; a stack whose
  `from_stack` outputs moved upstream is loaded again and converges to them.
- `publish` writes the notes outbox into git and shares the notes ref with the remote.

The engine is driven from one thread at a time: the passes run on the scheduler's threads, so each
pass (and every read of the engine's reports) holds one lock. Loading a commit's templates does
not: the stacks a commit touches are loaded before the lock is taken (`revisions_ahead`), and only
the hand-over to the engine happens under it.

Note lines go through the state store's outbox, so the worker that converged a stack records its
note in the same database every worker shares, and one process (the leader) writes them to git.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from reconciler.daemon.collector import collector_paused
from reconciler.daemon.commit_gate import CommitGate
from reconciler.daemon.memo_records import keep_plan_memo, records_for_plan
from reconciler.daemon.note_recorder import NoteRecorder
from reconciler.daemon.plan_notes import StoredRecords, plan_line, plan_pull_request
from reconciler.daemon.revisions_ahead import RevisionsAhead
from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.daemon.undeclared_stacks import undeclared_stacks
from reconciler.daemon.upstream_outputs import UpstreamOutputs
from reconciler.engine.desired import DesiredGeneration
from reconciler.engine.progress import Progress
from reconciler.engine.report import StackReport
from reconciler.engine.stack_status import AT_REST
from reconciler.plan import UpdateRules
from reconciler.source.commit_files import CommitFileSource
from reconciler.source.commit_trust import CommitTrust
from reconciler.source.heads import Heads
from reconciler.source.note_lines import REPOSITORY_SCOPE, NoteLine
from reconciler.source.note_publisher import publish_pending
from reconciler.source.notes_store import DEFAULT_NOTES_REF, PushOutcome, PushRejected
from reconciler.source.remote_cache import RemoteUnavailable
from reconciler.source.repository import FollowedRepository
from reconciler.source.revisions import (
    CommitConfig,
    InvalidCommit,
    InvalidStack,
    StackRevision,
    WaitingForOutputs,
    read_commit_config,
)
from reconciler.source.touched_stacks import changed_paths, touched_stacks
from reconciler.templates import DocumentCache, StackDefinition, TemplateError
from reconciler.templates.adopt_data import Adoption, load_adoption
from reconciler.templates.hidden_values import hidden_values
from state import StackStatus, StateError, Store
from timekeeping import Clock

LOG = logging.getLogger(__name__)
# a stack's outputs are final at its newest generation once it converged (drift repair keeps them)
OUTPUTS_SETTLED = frozenset({StackStatus.CONVERGED, StackStatus.SUSPENDED, StackStatus.DEGRADED})


class ConvergenceEngine(Protocol):
    """What the daemon drives of the engine."""

    def submit(self, stack: str, desired: DesiredGeneration) -> object: ...

    def step(self) -> Progress: ...

    def report(self, stack: str) -> StackReport | None: ...

    def invalid(self, stack: str, commit: str, reasons: Iterable[str]) -> None: ...

    def approve(self, stack: str, commit: str) -> bool: ...

    def remove_nested(self, child: str) -> bool:
        """Converge the stack to nothing; True once it holds no resources (any stack, not only nested)."""
        ...

    def retry_failed(
        self, stack: str | None = None, resource: str | None = None, *, escalated: bool = False
    ) -> int:
        """Retry the FAILED resources now (of every stack when `stack` is None)."""
        ...


@dataclass(frozen=True)
class Followed:
    """A follow pass: the tracked commit now, and what was done about it and the PR heads."""

    tracked: str | None
    new_commit: bool = False  # whether this pass read a tracked commit it had not seen
    submitted: tuple[str, ...] = ()
    invalid: tuple[str, ...] = ()
    planned: tuple[str, ...] = ()


@dataclass(frozen=True)
class FetchFailed:
    """The remote could not be fetched; the next pass tries again."""

    reason: str


FollowOutcome = Followed | FetchFailed


@dataclass
class _Active:
    """A stack's newest submitted commit and the last report noted for it."""

    commit: str
    submitted_at: float
    noted: tuple[Any, ...] | None = None
    superseded_noted: set[str] = field(default_factory=set)
    because: tuple[str, ...] = ()  # why it converges again at the same commit (an upstream output moved)
    definition: StackDefinition | None = None  # its plan memo is made from it once it converges


@dataclass(frozen=True)
class _Pending:
    files: CommitFileSource
    waiting_noted: bool = False
    because: tuple[str, ...] = ()


def _report_key(report: StackReport) -> tuple[Any, ...]:
    return (report.status, report.counts, report.failures, report.scalings)


class GitOps:
    """Follows one repository's tracked branch into one engine; notes what happens."""

    def __init__(
        self,
        repository: FollowedRepository,
        store: Store,
        engine: ConvergenceEngine,
        *,
        clock: Clock,
        writer: str,
        leader: bool,
        holds: Callable[[str], bool],
        rules_for: Callable[[str], UpdateRules],
        held_shards: Callable[[], Collection[int]] = tuple,
        on_settled: Callable[[float], None] = lambda _seconds: None,
        on_noted: Callable[[], None] = lambda: None,
        on_report: Callable[[StackReport], None] = lambda _report: None,
        documents: DocumentCache | None = None,
        trust: CommitTrust | None = None,
    ) -> None:
        self.repository = repository
        # who may sign the commits applied (default: no anchor kept, verification as each commit says)
        self.store = store
        self.engine = engine
        self.clock = clock
        self.writer = writer
        self.leader = leader
        self.holds = holds
        self.rules_for = rules_for
        self.held_shards = held_shards
        self.on_settled = on_settled
        self.on_report = on_report  # every report of a held stack, once per pass (events, status)
        self.notes = NoteRecorder(store, clock, writer, on_noted)
        # who may sign the commits applied (default: no anchor kept, verification as each commit says)
        self.gate = CommitGate(
            repository.repo, trust if trust is not None else CommitTrust(repository.repo, None), self.notes
        )
        self.tracked_branch = "main"
        self.heads: Heads | None = None
        self.seen_commit: str | None = None  # the newest tracked commit read (valid or not)
        self.good: CommitConfig | None = None  # the newest valid configuration
        self.input_files: dict[str, frozenset[str]] = {}
        self.pending: dict[str, _Pending] = {}
        self.active: dict[str, _Active] = {}
        self.removing: dict[str, str] = {}  # stack -> the commit that removed it from reconciler.yaml
        self.left_in_place: set[str] = set()  # stacks removed with prune off: noted once, left alone
        self._lock = threading.RLock()
        self.ahead = RevisionsAhead(
            documents
            if documents is not None
            else DocumentCache(blocks=StoredBlocks(store.template_blocks())),
            self._outputs_ready,
        )
        # notes refs written locally and not yet pushed (the default ref at start: an earlier run's)
        self.unshared: set[str] = {DEFAULT_NOTES_REF}
        self.upstream = UpstreamOutputs(self._outputs_ready, clock)

    @property
    def documents(self) -> DocumentCache:
        """The parsed templates this daemon keeps by blob id (for loads and plans alike)."""
        return self.ahead.documents

    # -- follow --------------------------------------------------------------------------------

    def follow(self) -> FollowOutcome:
        """Fetch (a remote, as leader), read the heads, take a new tracked commit, plan new PR heads."""
        if self.leader:
            try:
                self.repository.refresh()
            except RemoteUnavailable as error:
                LOG.warning("%s", error)
                return FetchFailed(str(error))
        if self.seen_commit is not None:  # signatures checked before the lock (the first read is one commit)
            self.gate.check_ahead(self.seen_commit, self.repository.heads(self.tracked_branch).tracked)
        with self._lock:
            tracked, new_commit, invalid_commit, to_plan = self._follow_heads()
            self.notes.record(self._remove_undeclared())
            self._take_approvals()
        submitted, invalid = self.load_pending()
        planned = self._plan_heads(to_plan)
        return Followed(tracked, new_commit, submitted, invalid_commit + invalid, planned)

    def _follow_heads(self) -> tuple[str | None, bool, tuple[str, ...], list[tuple[str, str]]]:
        """The tracked commit, whether it is new, (REPOSITORY_SCOPE,) if it is INVALID, and the new
        pull-request heads to plan."""
        if self.good is None and self.seen_commit is None:
            self.tracked_branch = self.repository.initial_branch()
        heads = self.repository.heads(self.tracked_branch)
        invalid: tuple[str, ...] = ()
        new_commit = heads.tracked is not None and heads.tracked != self.seen_commit
        if heads.tracked is not None and new_commit:
            invalid = self.take(heads.tracked)
        to_plan: list[tuple[str, str]] = []
        if self.leader and self.good is not None:
            to_plan = [
                (head, sha)
                for head, sha in heads.new_pull_request_heads(self.heads).items()
                if sha != heads.tracked
            ]
        self.heads = heads
        return heads.tracked, new_commit, invalid, to_plan

    def take(self, commit: str) -> tuple[str, ...]:
        """Read tracked commit `commit`: the stacks it touches become pending (`load_pending` loads
        and submits them); (REPOSITORY_SCOPE,) when the commit is INVALID, else ()."""
        read_before, self.seen_commit = self.seen_commit, commit
        chosen = self.gate.admitted(read_before, commit, leader=self.leader, restarting=self.good is None)
        if chosen is None:
            return ()
        commit = chosen
        retried = self.engine.retry_failed()  # a new commit is a moment to try again, whatever it touches
        if retried:
            LOG.info("commit %s: %d failed resource(s) tried again", commit[:12], retried)
        files = CommitFileSource(self.repository.repo, commit)
        read = read_commit_config(files)
        if isinstance(read, InvalidCommit):
            if self.leader:
                self.notes.record(
                    [
                        self.notes.convergence(
                            REPOSITORY_SCOPE, commit, StackStatus.INVALID, problems=read.problems
                        )
                    ]
                )
            LOG.warning(
                "commit %s is INVALID: %d problem(s); nothing applied", commit[:12], len(read.problems)
            )
            return (REPOSITORY_SCOPE,)
        previous = self.good
        self.good = read
        self.tracked_branch = read.config.branch
        self.notes.notes_ref = read.config.notes_ref
        previous_specs = previous.config.stacks if previous is not None else {}
        paths = changed_paths(self.repository.repo, previous.commit, commit) if previous is not None else ()
        touched = touched_stacks(paths, previous_specs, read.config.stacks, self.input_files)
        for name in touched.changed:
            self.pending[name] = _Pending(files)
        removals = [self._start_removal(name, previous_specs[name].prune, commit) for name in touched.removed]
        self.notes.record([line for line in removals if line is not None])
        if not touched.changed and not touched.removed and self.leader:
            self.notes.record([self.notes.convergence(REPOSITORY_SCOPE, commit, "UNCHANGED")])
        return ()

    def _remove_undeclared(self) -> list[NoteLine]:
        """Remove the stacks with resources that the tracked commit (valid) does not declare."""
        good = self.good
        if good is None or good.commit != self.seen_commit:
            return []
        known = self.removing.keys() | self.left_in_place
        lines = []
        for stack in undeclared_stacks(self.store, self.held_shards(), good.config.stacks, known):
            LOG.info("stack %s has resources but %s does not declare it", stack.name, good.commit[:12])
            lines.append(self._start_removal(stack.name, stack.prune, good.commit))
        return [line for line in lines if line is not None]

    def _take_approvals(self) -> None:
        """Stacks waiting for an approval that their commit now has in git: theirs go ahead."""
        for name, active in self.active.items():
            report = self.engine.report(name)
            if report is None or report.status is not StackStatus.PENDING_APPROVAL:
                continue
            if self.gate.approved(name, active.commit, self.holds) and self.engine.approve(
                name, active.commit
            ):
                LOG.info("stack %s approved at %s", name, active.commit[:12])

    def _start_removal(self, name: str, prune: bool, commit: str) -> NoteLine | None:
        """A stack left `reconciler.yaml`: delete its resources (when it prunes), noted on `commit`."""
        self.pending.pop(name, None)
        self.active.pop(name, None)
        self.input_files.pop(name, None)
        self.upstream.forget(name)
        if not prune:
            self.left_in_place.add(name)
            reason = "removed from reconciler.yaml; prune is off, so its resources are left in place"
            return (
                self.notes.convergence(name, commit, StackStatus.CONVERGED, failures=(reason,))
                if self.leader
                else None
            )
        self.removing[name] = commit
        if not self.holds(name):
            return None
        reason = "removed from reconciler.yaml: deleting its resources"
        return self.notes.convergence(name, commit, StackStatus.PROGRESSING, failures=(reason,))

    def _continue_removals(self) -> list[NoteLine]:
        lines = []
        for name, commit in list(self.removing.items()):
            if self.holds(name) and self.engine.remove_nested(name):
                del self.removing[name]
                self.notes.hidden.pop(name, None)
                reason = "removed from reconciler.yaml; its resources deleted or kept by deletion policy"
                lines.append(self.notes.convergence(name, commit, StackStatus.CONVERGED, failures=(reason,)))
        return lines

    def _outputs_ready(self, stack: str) -> Mapping[str, Any] | None:
        """`stack`'s outputs once they are those of its newest generation, else None (wait).

        An INVALID stack keeps its last good generation, so the outputs it has are the ones to use; an
        ABANDONED one keeps the outputs it had when it was abandoned.
        """
        if stack in self.pending:
            return None
        state = self.store.read_stack(stack)
        newest = self.store.newest_generation(stack)
        if state is None or newest is None:
            return None
        if state.status in (StackStatus.INVALID, StackStatus.ABANDONED):
            return state.outputs or None
        if state.status not in OUTPUTS_SETTLED or state.status_generation != newest.generation:
            return None
        return state.outputs

    def load_pending(self, *, wait: bool = True) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Load every pending stack whose upstream outputs exist, then submit them wave by wave;
        (submitted, invalid). Call it without holding the engine's lock: only the hand-over takes
        it. With `wait` false it does nothing while another load is under way."""
        if not self.ahead.loading.acquire(blocking=wait):
            return (), ()
        try:
            good = self.good
            if good is not None:
                self.ahead.load(good, {name: pending.files for name, pending in dict(self.pending).items()})
            with self._lock:
                return self._hand_over()
        finally:
            self.ahead.loading.release()

    def _hand_over(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Submit (or note) every pending stack loaded ahead, wave by wave; the others wait for
        the next load."""
        if self.good is None:
            return (), ()
        submitted: list[str] = []
        invalid: list[str] = []
        lines: list[NoteLine] = []
        for wave in self.good.waves:
            for name in wave:
                pending = self.pending.get(name)
                if pending is None:
                    continue
                spec = self.good.config.stacks[name]
                outcome = self.ahead.outcome(name, pending.files.sha, spec)
                if outcome is None:
                    continue  # loaded on the next pass
                if isinstance(outcome, WaitingForOutputs):
                    lines.extend(self._note_waiting(name, pending, outcome))
                    continue
                del self.pending[name]
                consulted = self.ahead.consulted(name)
                self.ahead.forget(name)
                if isinstance(outcome, InvalidStack):
                    invalid.append(name)
                    # Every daemon tells its engine (the shard's holder writes the status row);
                    # the leader writes the note.
                    reasons = [f"{p.file}:{p.line or 0}: {p.message}" for p in outcome.problems]
                    self.engine.invalid(name, outcome.commit, reasons)
                    report = self.engine.report(name)
                    if report is not None and self.holds(name):
                        self.on_report(report)
                    if self.leader:
                        lines.append(
                            self.notes.convergence(
                                name, outcome.commit, StackStatus.INVALID, problems=outcome.problems
                            )
                        )
                    continue
                if not spec.auto_apply:
                    lines.extend(self._planned_only(outcome))
                    continue
                adoption = self._adoption(outcome, pending.files)
                if isinstance(adoption, TemplateError):
                    invalid.append(name)
                    self.engine.invalid(name, outcome.commit, [str(p) for p in adoption.problems])
                    if self.leader:
                        lines.append(
                            self.notes.convergence(
                                name, outcome.commit, StackStatus.INVALID, problems=adoption.problems
                            )
                        )
                    continue
                lines.extend(self._submit(outcome, adoption, because=pending.because))
                self.upstream.loaded(name, consulted)
                submitted.append(name)
        self.notes.record(lines)
        return tuple(submitted), tuple(invalid)

    def _remember(self, revision: StackRevision) -> None:
        definition = revision.definition
        self.input_files[revision.name] = frozenset(definition.input_files)
        hidden = hidden_values(definition.parameters, definition.hidden_parameters)
        self.notes.hidden[revision.name] = hidden
        self.store.hide(revision.name, hidden)  # sealed at rest wherever the store writes them

    def _planned_only(self, revision: StackRevision) -> list[NoteLine]:
        """`auto_apply: false`: the tracked commit gets a plan note and nothing is applied."""
        self._remember(revision)
        if not self.leader:
            return []
        recorded, settled = records_for_plan(self.store, revision.name, revision.definition)
        rules = self.rules_for(revision.spec.cloud)
        nested = StoredRecords(self.store)
        plan = plan_line(
            revision, recorded, rules, at=self.clock.now(), writer=self.writer, nested=nested, settled=settled
        )
        waiting = self.notes.convergence(
            revision.name,
            revision.commit,
            StackStatus.PENDING,
            failures=("auto_apply is off: planned, not applied",),
        )
        return [plan, waiting]

    @staticmethod
    def _adoption(revision: StackRevision, files: CommitFileSource) -> Adoption | TemplateError | None:
        """The adopt data the stack's `adopt_from` names at this commit (None: it names none)."""
        if revision.spec.adopt_from is None:
            return None
        try:
            return load_adoption(files, revision.spec.adopt_from, revision.spec.limits)
        except TemplateError as error:
            return error

    def _note_waiting(self, name: str, pending: _Pending, outcome: WaitingForOutputs) -> list[NoteLine]:
        """The PENDING line of a stack waiting for upstream outputs, once, by the shard's holder."""
        if pending.waiting_noted or not self.holds(name):
            return []
        self.pending[name] = _Pending(pending.files, waiting_noted=True)
        waiting = ", ".join(sorted(outcome.upstream))
        return [
            self.notes.convergence(
                name, outcome.commit, StackStatus.PENDING, failures=(f"waiting for outputs of {waiting}",)
            )
        ]

    def _submit(
        self, revision: StackRevision, adoption: Adoption | None = None, *, because: tuple[str, ...] = ()
    ) -> list[NoteLine]:
        """Hand `revision` to the engine; the SUPERSEDED line of the commit it takes over from, if any."""
        self._remember(revision)
        self.removing.pop(revision.name, None)
        self.left_in_place.discard(revision.name)
        before = self.engine.report(revision.name) if revision.name in self.active else None
        self.engine.submit(
            revision.name, DesiredGeneration(revision.commit, revision.spec, revision.definition, adoption)
        )
        active = _Active(
            commit=revision.commit,
            submitted_at=self.clock.now(),
            because=because,
            definition=revision.definition,
        )
        self.active[revision.name] = active
        if before is None or before.commit in (None, revision.commit) or before.settled:
            return []
        # The commit in progress is taken over even when the definition did not change (the engine
        # notes SUPERSEDED only for a new generation): noted here, once.
        assert before.commit is not None
        active.superseded_noted.add(before.commit)
        if not self.holds(revision.name):
            return []
        reason = f"superseded by {revision.commit[:12]}"
        return [
            self.notes.convergence(revision.name, before.commit, StackStatus.SUPERSEDED, failures=(reason,))
        ]

    # -- plans for pull-request heads ------------------------------------------------------------

    def _plan_heads(self, heads: list[tuple[str, str]]) -> tuple[str, ...]:
        """Plan each (head, sha) outside the engine's lock, one load at a time."""
        if not heads:
            return ()
        with self.ahead.loading:
            return tuple(stack for head, sha in heads for stack in self.plan_head(head, sha))

    def plan_head(self, head: str, sha: str) -> list[str]:
        """Plan note lines on PR head `sha` for every stack it changes against the tracked commit."""
        good = self.good
        assert good is not None
        files = CommitFileSource(self.repository.repo, sha)
        with collector_paused():
            lines = plan_pull_request(
                files,
                good,
                dict(self.input_files),
                self.store,
                self.rules_for,
                at=self.clock.now(),
                writer=self.writer,
                documents=self.documents,
            )
        with self._lock:
            self.notes.record(lines)
        LOG.info("planned %s (%s): %d stack(s)", head, sha[:12], len(lines))
        return [line.stack for line in lines]

    # -- converge ------------------------------------------------------------------------------

    def converge(self) -> Progress:
        """One engine step and changed reports noted, then newly loadable stacks loaded (outside
        the lock, unless a load is already under way) and submitted."""
        with self._lock:
            progress, converged = self._converge()
        for name, definition in converged:
            # the first plan of a change to a stack just converged reads its memo, not its records
            try:
                keep_plan_memo(self.store, name, definition)
            except StateError as error:  # a cache: the next plan reads every record and keeps it
                LOG.warning("stack %s: plan memo not kept: %s", name, error)
        if self.pending:
            self.load_pending(wait=False)
        return progress

    def reports(self) -> dict[str, StackReport | None]:
        """The engine's report of every stack this daemon submitted."""
        with self._lock:
            return {name: self.engine.report(name) for name in self.active}

    def _converge(self) -> tuple[Progress, list[tuple[str, StackDefinition]]]:
        """The step's progress, and the stacks that converged in it, with their definitions."""
        progress = self.engine.step()
        converged: list[tuple[str, StackDefinition]] = []
        lines: list[NoteLine] = self._continue_removals()
        for name, active in self.active.items():
            report = self.engine.report(name)
            if report is None or not self.holds(name):
                continue
            self.on_report(report)
            for old in report.superseded:
                if old not in active.superseded_noted and old != active.commit:
                    active.superseded_noted.add(old)
                    lines.append(
                        self.notes.convergence(
                            name,
                            old,
                            StackStatus.SUPERSEDED,
                            failures=(f"superseded by {active.commit[:12]}",),
                        )
                    )
            if report.commit != active.commit or active.noted == _report_key(report):
                continue
            if report.settled and (
                active.noted is None or active.noted[0] not in ("CONVERGED", "SUSPENDED", "FAILED")
            ):
                self.on_settled(self.clock.now() - active.submitted_at)
            if report.status is StackStatus.CONVERGED and active.definition is not None:
                converged.append((name, active.definition))
            active.noted = _report_key(report)
            lines.append(self.notes.report(report, because=active.because))
        lines.extend(self._follow_upstream_outputs())
        self.notes.record(lines)
        return progress, converged

    def _follow_upstream_outputs(self) -> list[NoteLine]:
        """Stacks whose `from_stack` outputs moved upstream are loaded again (noted by their holder)."""
        good = self.good
        if good is None:
            return []
        lines = []
        for name, moved in self.upstream.moved(good.config, skip=self.pending.keys()).items():
            active = self.active.get(name)
            if active is None:
                continue
            because = tuple(str(output) for output in moved)
            LOG.info("stack %s converges again: %s", name, "; ".join(because))
            files = CommitFileSource(self.repository.repo, active.commit)
            self.pending[name] = _Pending(files, because=because)
            if self.holds(name):
                lines.append(
                    self.notes.convergence(name, active.commit, StackStatus.PROGRESSING, failures=because)
                )
        return lines

    # -- publish -------------------------------------------------------------------------------

    def publish(self) -> PushOutcome | None:
        """Write pending note lines into git and push them (leader only)."""
        if not self.leader:
            return None
        published = publish_pending(self.store, self.repository.repo, now=self.clock.now())
        self.unshared |= published.refs
        outcome: PushOutcome | None = None
        for ref in sorted(self.unshared):
            outcome = self.repository.share_notes(ref)
            if isinstance(outcome, PushRejected):
                LOG.warning(
                    "notes %s not pushed after %d attempts: %s", ref, outcome.attempts, outcome.reason
                )
            else:
                self.unshared.discard(ref)
        return outcome

    # -- status --------------------------------------------------------------------------------

    def reload(self) -> None:
        """Read the tracked commit again from scratch (SIGHUP): every stack is re-submitted, and,
        as on any new commit, the resources FAILED for a permanent cause are tried again."""
        self.seen_commit = None
        self.good = None
        self.input_files.clear()

    def status_line(self) -> str:
        """The STATUS= text: the tracked commit and how many stacks converged there."""
        if self.seen_commit is None:
            return "waiting for the tracked branch"
        reports = list(self.reports().values())
        converged = sum(1 for report in reports if report is not None and report.status in AT_REST)
        total = len(self.good.config.stacks) if self.good is not None else 0
        return f"commit {self.seen_commit[:12]}: {converged}/{total} stacks converged"
