"""The status page's sources in a running daemon: the board, the store, the engine and the notes.

Stacks come from the same views as `GET /status` (this worker's board, the shared store for the
others); a dependency graph from the engine's run of a stack this worker holds (the definition it
converges, read without the engine's lock: a run's definition is replaced whole, never changed in
place); history from the notes of the tracked branch in the daemon's own clone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from reconciler.daemon.gitops import GitOps
from reconciler.daemon.recent_events import RecentEvents
from reconciler.daemon.stack_board import StackView
from reconciler.daemon.status_document import declared_views
from reconciler.daemon.status_page import PageSources
from reconciler.engine.engine import Engine
from reconciler.source.notes_store import DEFAULT_NOTES_REF
from reconciler.source.stack_history import CommitEntry, stack_history
from state import Store


def daemon_page_sources(
    gitops: GitOps,
    views: Callable[[], list[StackView]],
    *,
    store: Store,
    engine: Engine,
    events: RecentEvents,
    redact: Callable[[str, str], str],
) -> PageSources:
    """The page's sources; `views` gives this worker's views of the stacks it holds."""

    def stacks() -> tuple[str | None, Sequence[StackView]]:
        good = gitops.good
        declared = sorted(good.config.stacks) if good is not None else []
        return gitops.seen_commit, declared_views(declared, views(), store.read_stacks)

    def graph(stack: str) -> Mapping[str, frozenset[str]] | None:
        if "/" in stack or not gitops.holds(stack):
            return None
        run = engine.run_of(stack)
        definition = None if run is None else run.definition
        return None if definition is None else definition.graph()

    def history(stack: str, limit: int) -> Sequence[CommitEntry]:
        head, good = gitops.seen_commit, gitops.good
        if head is None:
            return []
        notes_ref = good.config.notes_ref if good is not None else DEFAULT_NOTES_REF
        return stack_history(Path(gitops.repository.repo.git_dir), notes_ref, head, stack, limit)

    return PageSources(
        stacks=stacks,
        events=events.newest,
        resources=store.resource_page,
        graph=graph,
        history=history,
        redact=redact,
    )
