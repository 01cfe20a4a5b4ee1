"""A JSON template written one resource per line, parsed a line at a time so that an unchanged
resource is not parsed again (the JSON counterpart of `block_parsing`).

The cut is used only where the layout is exactly that: one `"resources": {` that ends its line,
then one line per resource (`"name": {...},`, the last without the comma), then a line starting
with the closing `}`. The other sections are parsed with a marker in the section's place, and must
put that marker under "resources" (no later "resources" key overriding it). Each line is parsed as
the one-member object it writes, so its value is that line's alone. Anything else is parsed whole,
as before, and so is everything when one piece does not parse as expected: the whole parse then
gives the value, or the error with its line and column.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any

from reconciler.templates.block_parsing import BlockKeeper, BlockParse
from reconciler.templates.limits import Limits
from reconciler.templates.resource_bodies import merged_bodies

# Names what a slot holds and how it was made; a change to either starts new slots.
LINES_FORMAT = "json-lines-2"

_RESOURCES_OPEN = re.compile(r'"resources"[ \t]*:[ \t]*\{[ \t]*\r?\n')
_SECTION_CLOSE = re.compile(r"\n[ \t]*\}")


def line_slot(path: str, limits: Limits) -> str:
    """The slot of the JSON template at `path` read within `limits`."""
    return hashlib.sha256(f"{LINES_FORMAT}\0{path}\0{limits!r}".encode()).hexdigest()


def parse_lines(path: str, text: str, limits: Limits, keeper: BlockKeeper) -> BlockParse | None:
    """The value of the JSON template `text`, its resource lines parsed apart and reused from
    `keeper`, with each resource's line digest; None when the layout is not one resource per line."""
    cut = _cut(text)
    if cut is None:
        return None
    opening, closing, lines = cut
    marker = "reconciler-resource-lines-" + hashlib.sha256(text.encode("utf-8")).hexdigest()
    try:
        document = json.loads(f'{text[:opening]}"{marker}"{text[closing + 1 :]}')
    except (json.JSONDecodeError, RecursionError):
        return None
    if type(document) is not dict or document.get("resources") != marker:
        return None
    # personalized: a line's digest never equals a YAML block's of the same text (parsed otherwise)
    blake2b = hashlib.blake2b
    digests = [blake2b(line.encode("utf-8"), digest_size=20, person=b"json-line").digest() for line in lines]
    slot = line_slot(path, limits)
    known = keeper.known(slot)
    fresh = _parsed_lines(
        [(digest, line) for digest, line in zip(digests, lines, strict=True) if digest not in known]
    )
    if fresh is None:
        return None
    merged = merged_bodies(digests, known, fresh)
    if merged is None:
        return None
    document["resources"], names, kept = merged
    keeper.keep(slot, kept)
    skeleton = hashlib.blake2b(f"{text[:opening]}\0{text[closing:]}".encode(), digest_size=20).digest()
    return BlockParse(document, names, skeleton)


def _cut(text: str) -> tuple[int, int, list[str]] | None:
    """The section's opening and closing braces and its lines (each a member, its comma removed)."""
    openings = _RESOURCES_OPEN.findall(text)
    if len(openings) != 1:
        return None
    found = _RESOURCES_OPEN.search(text)
    assert found is not None
    opening = text.index("{", found.start() + len('"resources"'))
    end = _SECTION_CLOSE.search(text, found.end() - 1)
    if end is None:
        return None
    closing = end.end() - 1
    section = text[found.end() : end.start()]
    members = section.split(",\n")
    if section.count("\n") == len(members) - 1:  # every line but the last ends with its comma
        members[-1] = members[-1].rstrip()
        return None if members[-1].endswith(",") else (opening, closing, members)
    found_members = _members_of_lines(section.split("\n"))
    return None if found_members is None else (opening, closing, found_members)


def _members_of_lines(lines: list[str]) -> list[str] | None:
    """The members written on `lines`, each line's comma removed (spaces after it allowed)."""
    members = [line.rstrip() for line in lines]
    if not all(member.endswith(",") for member in members[:-1]) or members[-1].endswith(","):
        return None
    members[:-1] = [member[:-1] for member in members[:-1]]
    return members


def _parsed_lines(lines: list[tuple[bytes, str]]) -> Mapping[bytes, Any] | None:
    """Each line's value (`{name: body}`), by digest; None when one is not one member.

    The lines are parsed as one array (a cold template costs one parse, not one per resource);
    an element is a line's value only where it has the one name the line starts with, and a line
    whose element is not is parsed on its own."""
    if not lines:
        return {}
    try:
        together = json.loads("[{" + "},{".join(line for _, line in lines) + "}]")
    except (json.JSONDecodeError, RecursionError):
        return None
    if type(together) is not list or len(together) != len(lines):
        return None
    values: dict[bytes, Any] = {}
    for (digest, line), element in zip(lines, together, strict=True):
        if type(element) is dict and len(element) == 1:
            name = next(iter(element))
            if line.lstrip(" \t").startswith(json.dumps(name) + ":"):
                values[digest] = element
                continue
        try:
            alone = json.loads("{" + line + "}")
        except (json.JSONDecodeError, RecursionError):
            return None
        if type(alone) is not dict or len(alone) != 1:
            return None
        values[digest] = alone
    return values
