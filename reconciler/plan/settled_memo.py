"""What a plan found settled, kept with the records it was found against, so the next plan over the
same records decides only the resources its template changed.

A resource is settled when its recorded properties were resolved from exactly what it would be
resolved from now (`resolution_inputs`): a function of the stack's shared inputs, the resource's
type and text as written, and the records of those it requires. The memo keeps, for each settled
resource, the digest of its text and its type, with the stack's shared inputs: over records that
have not changed since (the caller's records stamp says so), a resource whose text, type and the
stack's shared inputs are the memo's is settled still, with no digest made and no record read. The
memo also keeps the names of every record, so what left the template is found without reading
the records.
"""

from __future__ import annotations

import marshal
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from reconciler.plan.resolution_inputs import ScopedStack, stack_inputs

# Names what a memo holds; a change to it, or to what settles a resource, starts anew.
MEMO_FORMAT = "settled-memo-1"


@runtime_checkable
class TextDigested(Protocol):
    """A definition that knows each resource's digest of its text (`StackDefinition`)."""

    @property
    def resources(self) -> Mapping[str, Any]: ...

    def resource_text_digests(self) -> Mapping[str, bytes]: ...


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
    if not isinstance(definition, TextDigested) or not isinstance(definition, ScopedStack):
        return None
    digests = definition.resource_text_digests()
    shared = stack_inputs(definition)
    if shared is None or not digests:
        return None
    resources = definition.resources
    names = [name for name in settled if name in digests]
    return marshal.dumps(
        (
            MEMO_FORMAT,
            shared,
            names,
            [digests[name] for name in names],
            [resources[name].type for name in names],
            list(recorded),
        )
    )


def settled_by_memo(definition: object, content: bytes) -> SettledMemo | None:
    """What `content` (a `memo_content`) tells of `definition` over the records it was made at
    (None: it tells nothing of it)."""
    if not isinstance(definition, TextDigested) or not isinstance(definition, ScopedStack):
        return None
    try:
        made = marshal.loads(content)
    except (EOFError, ValueError, TypeError):
        return None
    if type(made) is not tuple or len(made) != 6 or made[0] != MEMO_FORMAT:
        return None
    _, shared, names, digests, types, recorded = made
    if shared != stack_inputs(definition) or shared is None:
        return None
    now = definition.resource_text_digests()
    resources = definition.resources
    settled = [
        name
        for name, digest, type_name in zip(names, digests, types, strict=True)
        if now.get(name) == digest
        and (resource := resources.get(name)) is not None
        and resource.type == type_name
    ]
    return SettledMemo(frozenset(settled), frozenset(recorded))
