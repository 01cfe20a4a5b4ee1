"""What a plan found settled, kept with the records it was found against, so the next plan over the
same records decides only the resources its template changed.

A resource is settled when its recorded properties were resolved from exactly what it would be
resolved from now (`resolution_inputs`): a function of the stack's shared inputs, the resource's
type and text as written, and the records of those it requires. The memo keeps the digest of
each settled resource's text, with the stack's shared inputs and the digest of what decides types
besides the text (the registry, the schemas): over records that have not changed since (the
caller's records stamp says so), a resource whose text is the memo's, in a stack whose shared
inputs and types digest are the memo's, is settled still, with no digest made and no record read.
The memo also keeps the names of every record, so what left the template is found without reading
the records.
"""

from __future__ import annotations

import marshal
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from reconciler.plan.resolution_inputs import ScopedStack, stack_inputs

# Names what a memo holds; a change to it, or to what settles a resource, starts anew.
MEMO_FORMAT = "settled-memo-1"


@runtime_checkable
class TextDigested(Protocol):
    """A definition that knows each resource's digest of its text (`StackDefinition`)."""

    def graph(self) -> Mapping[str, frozenset[str]]: ...

    def resource_text_digests(self) -> Mapping[str, bytes]: ...

    def resource_types_digest(self) -> bytes: ...


@dataclass(frozen=True)
class SettledMemo:
    """The resources still settled, and the names of every record, as the memo tells them."""

    settled: frozenset[str]
    recorded: frozenset[str]


def memoizable(definition: object) -> bool:
    """Whether a plan of `definition` can keep a memo (its text digests and shared inputs known)."""
    return (
        isinstance(definition, TextDigested)
        and isinstance(definition, ScopedStack)
        and bool(definition.resource_text_digests())
        and stack_inputs(definition) is not None
    )


def memo_content(definition: object, settled: Collection[str], recorded: Collection[str]) -> bytes | None:
    """The memo of a plan of `definition` that found `settled` over records named `recorded` (None:
    this definition cannot be memoized: no text digests, or no shared inputs)."""
    if not memoizable(definition):
        return None
    assert isinstance(definition, TextDigested) and isinstance(definition, ScopedStack)
    digests = definition.resource_text_digests()
    kept = {name: digests[name] for name in settled if name in digests}
    others = [name for name in recorded if name not in kept]
    header = (MEMO_FORMAT, stack_inputs(definition), definition.resource_types_digest())
    return marshal.dumps((header, kept, others))


def settled_by_memo(definition: object, content: bytes) -> SettledMemo | None:
    """What `content` (a `memo_content`) tells of `definition` over the records it was made at
    (None: it tells nothing of it).

    A resource settled then is settled still when its text is the one it had: its type follows
    from its text and the header's registry and schemas, its properties and what it requires from
    its text and the header's shared inputs, and their ids from the records, unchanged since."""
    if not isinstance(definition, TextDigested) or not isinstance(definition, ScopedStack):
        return None
    try:
        header, kept, others = marshal.loads(content)
    except (EOFError, ValueError, TypeError):
        return None
    if type(kept) is not dict or type(others) is not list or stack_inputs(definition) is None:
        return None
    if header != (MEMO_FORMAT, stack_inputs(definition), definition.resource_types_digest()):
        return None
    now = definition.resource_text_digests().get
    settled = frozenset([name for name, digest in kept.items() if now(name) == digest])
    recorded = frozenset(kept)
    return SettledMemo(settled, recorded.union(others) if others else recorded)
