"""Stacks loaded before the engine's lock is taken, kept until they are handed over under it.

Loading a large template takes seconds; the engine must keep stepping meanwhile. So a pass loads
the pending stacks first, holding only `loading` (one load at a time: one `DocumentCache` serves
them all, and a template no later commit touches is never parsed or checked again), and the
hand-over under the engine's lock only takes the outcomes. A load notes the upstream outputs it
read (`from_stack`); its outcome is handed over only while they are still what the stack would
read, at the same commit and with the same spec. Otherwise the stack is loaded again.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from reconciler.daemon.collector import collector_paused
from reconciler.source.commit_files import CommitFileSource
from reconciler.source.revisions import CommitConfig, RevisionOutcome, load_revision
from reconciler.templates import DocumentCache, StackSpec

Outputs = Mapping[str, Any] | None
OutputsReader = Callable[[str], Outputs]


@dataclass(frozen=True)
class _LoadedAhead:
    commit: str
    spec: StackSpec
    consulted: Mapping[str, Outputs]  # upstream stack -> the outputs the load read
    outcome: RevisionOutcome


class RevisionsAhead:
    """Pending stacks' load outcomes, made outside the engine's lock."""

    def __init__(self, documents: DocumentCache, outputs_ready: OutputsReader) -> None:
        self.documents = documents
        self.loading = threading.Lock()  # held for every load (and by whoever hands outcomes over)
        self._outputs_ready = outputs_ready
        self._ahead: dict[str, _LoadedAhead] = {}

    def load(self, config: CommitConfig, pending: Mapping[str, CommitFileSource]) -> None:
        """Load, wave by wave, each pending stack not loaded yet or whose inputs changed since
        (call with `loading` held)."""
        for name in [name for name in self._ahead if name not in pending]:
            del self._ahead[name]
        for wave in config.waves:
            for name in wave:
                files = pending.get(name)
                spec = config.config.stacks.get(name)
                if files is None or spec is None or self.outcome(name, files.sha, spec) is not None:
                    continue
                consulted: dict[str, Outputs] = {}
                with collector_paused():
                    outcome = load_revision(files, spec, self._noting_in(consulted), self.documents)
                self._ahead[name] = _LoadedAhead(files.sha, spec, consulted, outcome)

    def outcome(self, name: str, commit: str, spec: StackSpec) -> RevisionOutcome | None:
        """`name`'s outcome, if it was loaded at `commit` from `spec` and the outputs read now."""
        ahead = self._ahead.get(name)
        if ahead is None or ahead.commit != commit or ahead.spec != spec:
            return None
        if any(self._outputs_ready(stack) != outputs for stack, outputs in ahead.consulted.items()):
            return None
        return ahead.outcome

    def consulted(self, name: str) -> Mapping[str, Outputs]:
        """The upstream outputs `name`'s load read (by upstream stack)."""
        ahead = self._ahead.get(name)
        return {} if ahead is None else ahead.consulted

    def forget(self, name: str) -> None:
        """`name` was handed over: its outcome is not needed any more."""
        self._ahead.pop(name, None)

    def _noting_in(self, consulted: dict[str, Outputs]) -> OutputsReader:
        def outputs_of(stack: str) -> Outputs:
            consulted[stack] = outputs = self._outputs_ready(stack)
            return outputs

        return outputs_of
