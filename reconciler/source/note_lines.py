"""The lines of a reconciler git note: one JSON object per line, one line per stack.

Why lines: `git notes merge -s cat_sort_uniq` concatenates, sorts and de-duplicates the lines of two
concurrent writers' notes, so two daemons noting the same commit never conflict. A note may then
hold several lines for one stack (PROGRESSING from one writer, CONVERGED from another); readers keep
the newest per (kind, stack), by the writer's clock and then by how final the status is.

Keys are written sorted and without spaces, so equal objects are equal lines and `uniq` collapses
them. A plan line carries the property values a change touches (old and new), with every value that
comes from or contains a hidden parameter already masked by whoever made the line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

REPOSITORY_SCOPE = "*"  # the `stack` of a line about the whole commit (e.g. reconciler.yaml is broken)

NoteKind = Literal["convergence", "plan"]
CONVERGENCE: Literal["convergence"] = "convergence"
PLAN: Literal["plan"] = "plan"

# How final a status is: on equal timestamps the more final line wins.
STATUS_FINALITY = {
    "PENDING": 0,
    "PROGRESSING": 1,
    "DEGRADED": 2,
    "PENDING_APPROVAL": 2,
    "SUPERSEDED": 3,
    "INVALID": 3,
    "FAILED": 3,
    "CONVERGED": 3,
    "SUSPENDED": 3,
    "ABANDONED": 3,
    "PLANNED": 3,
    "UNCHANGED": 3,
}

COUNT_NAMES = ("created", "updated", "replaced", "deleted", "unchanged")


class NoteFormatError(ValueError):
    """A note line that is not a reconciler line; the message names the line number."""


@dataclass(frozen=True)
class Problem:
    """One error of an INVALID commit: the file, line and message (no parameter values)."""

    file: str
    line: int | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "message": self.message}


ABSENT = "(none)"  # a property's side of a change where it is not set
MASKED = "******"


@dataclass(frozen=True)
class PropertyChange:
    """One property a plan changes: its value now and after (ABSENT or MASKED where so)."""

    property: str
    old: Any
    new: Any


@dataclass(frozen=True)
class HeldChange:
    """What happens to a resource held inside a planned one (its nested stack), by path."""

    resource: str  # relative to the entry holding it: "server", "2.port"
    action: str  # "create", "update", "replace", "delete" or "retain"


@dataclass(frozen=True)
class PlannedChange:
    """One entry of a plan: a top-level resource, or a member of a group (`nodes.2`)."""

    resource: str
    type: str = ""
    changes: tuple[PropertyChange, ...] = ()  # old -> new per changed property, secrets masked
    because: tuple[str, ...] = ()  # a replacement: the properties (or "type", "status") forcing it
    group: str | None = None  # a member's group
    member: str | None = None  # a member's name in its group
    retained: bool = False  # a deletion that `Retain` keeps in the cloud, out of management
    holds: tuple[HeldChange, ...] = ()  # what changes inside it
    reads: tuple[str, ...] = ()  # the changing resources whose new values it takes

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"resource": self.resource}
        if self.type:
            body["type"] = self.type
        if self.changes:
            body["changes"] = [_change_json(change) for change in self.changes]
        if self.because:
            body["because"] = list(self.because)
        if self.group is not None:
            body["group"] = self.group
            body["member"] = self.member
        if self.retained:
            body["retained"] = True
        if self.holds:
            body["holds"] = [{"resource": held.resource, "action": held.action} for held in self.holds]
        if self.reads:
            body["reads"] = list(self.reads)
        return body


@dataclass(frozen=True)
class PlannedActions:
    """What a plan would do to one stack: every top-level resource that changes once, in one of
    the four lists, and a group's members as entries of their own."""

    create: tuple[PlannedChange, ...] = ()
    update: tuple[PlannedChange, ...] = ()
    replace: tuple[PlannedChange, ...] = ()
    delete: tuple[PlannedChange, ...] = ()  # retained ones too, marked
    unchanged: int = 0

    @property
    def changes(self) -> int:
        return len(self.create) + len(self.update) + len(self.replace) + len(self.delete)

    def destructive(self) -> tuple[PlannedChange, ...]:
        """Deletions (but those `Retain` keeps) and replacements: what loses a physical resource."""
        return (*(entry for entry in self.delete if not entry.retained), *self.replace)


@dataclass(frozen=True)
class NoteLine:
    """One stack's record on one commit: a convergence status or a plan."""

    kind: NoteKind
    stack: str
    commit: str
    status: str
    at: float
    writer: str = ""
    counts: Mapping[str, int] = field(default_factory=dict)
    failures: tuple[str, ...] = ()
    problems: tuple[Problem, ...] = ()
    plan: PlannedActions | None = None
    kept: tuple[str, ...] = ()  # what deletion policies kept: retained resources, snapshots made

    def to_json(self) -> str:
        """The line as written into the note (sorted keys, no spaces, no newline)."""
        body: dict[str, Any] = {
            "kind": self.kind,
            "stack": self.stack,
            "commit": self.commit,
            "status": self.status,
            "at": round(self.at, 3),
        }
        if self.writer:
            body["writer"] = self.writer
        if self.counts:
            body["counts"] = dict(self.counts)
        if self.failures:
            body["failures"] = list(self.failures)
        if self.kept:
            body["kept"] = list(self.kept)
        if self.problems:
            body["problems"] = [problem.to_json() for problem in self.problems]
        if self.plan is not None:
            body["plan"] = _plan_json(self.plan)
        return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    def supersedes(self, other: NoteLine) -> bool:
        """Whether this line is newer than `other` (same kind and stack)."""
        return (self.at, STATUS_FINALITY.get(self.status, 0)) > (
            other.at,
            STATUS_FINALITY.get(other.status, 0),
        )


PLAN_ACTIONS = ("create", "update", "replace", "delete")


def _plan_json(plan: PlannedActions) -> dict[str, Any]:
    return {
        **{action: [entry.to_json() for entry in getattr(plan, action)] for action in PLAN_ACTIONS},
        "unchanged": plan.unchanged,
    }


def _change_json(change: PropertyChange) -> dict[str, Any]:
    return {"property": change.property, "old": change.old, "new": change.new}


def _entry_from_json(item: Any, diffs: Mapping[str, Any], *, retained: bool = False) -> PlannedChange:
    """An entry as written; a bare name (notes written before entries carried their details) takes
    its property changes from the old `diffs` map."""
    if isinstance(item, str):
        item = {"resource": item, "changes": diffs.get(item, ()), "retained": retained}
    return PlannedChange(
        resource=str(item["resource"]),
        type=str(item.get("type", "")),
        changes=tuple(
            PropertyChange(c["property"], c.get("old"), c.get("new"))
            for c in item.get("changes", diffs.get(item["resource"], ()))
        ),
        because=tuple(item.get("because", ())),
        group=item.get("group"),
        member=item.get("member"),
        retained=bool(item.get("retained", retained)),
        holds=tuple(HeldChange(h["resource"], h["action"]) for h in item.get("holds", ())),
        reads=tuple(item.get("reads", ())),
    )


def _plan_from_json(body: Mapping[str, Any]) -> PlannedActions:
    diffs = body.get("diffs") or {}

    def entries(action: str, *, retained: bool = False) -> tuple[PlannedChange, ...]:
        return tuple(_entry_from_json(item, diffs, retained=retained) for item in body.get(action, ()))

    return PlannedActions(
        create=entries("create"),
        update=(*entries("update"), *entries("deferred")),
        replace=entries("replace"),
        delete=(*entries("delete"), *entries("retain", retained=True)),
        unchanged=int(body.get("unchanged", 0)),
    )


def parse_line(text: str, number: int = 1) -> NoteLine:
    """One note line back into a `NoteLine`; `NoteFormatError` names the line when it is not one."""
    try:
        body = json.loads(text)
        kind = body["kind"]
        if kind not in (CONVERGENCE, PLAN):
            raise ValueError(f"unknown kind {kind!r}")
        return NoteLine(
            kind=kind,
            stack=str(body["stack"]),
            commit=str(body["commit"]),
            status=str(body["status"]),
            at=float(body["at"]),
            writer=str(body.get("writer", "")),
            counts={str(k): int(v) for k, v in body.get("counts", {}).items()},
            failures=tuple(str(f) for f in body.get("failures", ())),
            problems=tuple(
                Problem(file=str(p["file"]), line=p.get("line"), message=str(p["message"]))
                for p in body.get("problems", ())
            ),
            plan=_plan_from_json(body["plan"]) if "plan" in body else None,
            kept=tuple(str(k) for k in body.get("kept", ())),
        )
    except (ValueError, KeyError, TypeError) as error:
        raise NoteFormatError(f"note line {number}: not a reconciler note line ({error})") from error


def parse_note(text: str) -> list[NoteLine]:
    """Every line of a note, in order; blank lines are skipped."""
    return [parse_line(raw, number) for number, raw in enumerate(text.splitlines(), start=1) if raw.strip()]


def newest_per_stack(lines: Iterable[NoteLine]) -> list[NoteLine]:
    """The newest line of each (kind, stack), sorted by kind then stack name."""
    newest: dict[tuple[str, str], NoteLine] = {}
    for line in lines:
        key = (line.kind, line.stack)
        if key not in newest or line.supersedes(newest[key]):
            newest[key] = line
    return [newest[key] for key in sorted(newest)]


def render_note(lines: Sequence[NoteLine]) -> str:
    """The note text for `lines`: sorted, unique, newline-terminated (what cat_sort_uniq keeps)."""
    return "".join(f"{text}\n" for text in sorted({line.to_json() for line in lines}))


def with_line(existing: Iterable[NoteLine], line: NoteLine) -> list[NoteLine]:
    """The note's lines after writing `line`: it replaces the older lines of its kind and stack."""
    kept = [
        other
        for other in existing
        if (other.kind, other.stack) != (line.kind, line.stack) or other.supersedes(line)
    ]
    return newest_per_stack([*kept, line])
