"""A YAML template cut at its top-level resources, so that an unchanged resource is not parsed again.

A template in block style keeps each resource in its own run of lines under `resources:`: a line
at the section's indentation starts a resource, every line after it indented further (or blank, or
a comment) belongs to it. Each run is a YAML document of its own (`name: body`), so the template is
its other sections (the text without those runs) plus one small document per resource, parsed
apart, each found again by the digest of its text.

The cut is used only where it is plain: no tab in an indentation, one `resources:` line at column 0,
a section whose first line sets an indentation no later line of it goes under. Anything else is
parsed whole, and so is everything when a piece fails to parse, defines an anchor, or is not one
resource: errors, line numbers and anchors are then the whole parse's, exactly as before.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

_SECTION = re.compile(r"resources:[ \t]*(#.*)?\r?")
_BLANK_OR_COMMENT = re.compile(r"[ ]*(#.*)?\r?")


@dataclass(frozen=True)
class ResourceBlock:
    """One resource's lines, as written, and the digest naming them."""

    text: str
    digest: bytes


@dataclass(frozen=True)
class CutTemplate:
    """A template's lines before its `resources:` line and after that section, and its resources'
    blocks in the order written."""

    before: tuple[str, ...]
    after: tuple[str, ...]
    blocks: tuple[ResourceBlock, ...]

    def rest(self, resources_value: str) -> str:
        """The template's other sections, with `resources: <resources_value>` in the section's place."""
        return "\n".join([*self.before, f"resources: {resources_value}", *self.after])


def block_digest(text: str) -> bytes:
    """The digest naming a block's text (and so its parsed value)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).digest()


def cut_template(text: str) -> CutTemplate | None:
    """`text` cut at its resources, or None when it is not plainly block-structured there."""
    lines = text.split("\n")
    starts = [index for index, line in enumerate(lines) if _SECTION.fullmatch(line)]
    if len(starts) != 1:
        return None
    first = starts[0] + 1
    end = first
    while end < len(lines) and (not lines[end] or lines[end][0] in " #\r"):
        end += 1
    section = lines[first:end]
    if any("\t" in line[: len(line) - len(line.lstrip())] for line in section):
        return None
    indent = _section_indent(section)
    if indent is None:
        return None
    runs: list[list[str]] = []
    for line in section:
        stripped = len(line) - len(line.lstrip(" "))
        content = not _BLANK_OR_COMMENT.fullmatch(line)
        if content and stripped < indent:
            return None
        if content and stripped == indent:
            runs.append([line])
        elif runs:
            runs[-1].append(line)
    # Every line but the text's last ends in a line break, which a block scalar's value may keep.
    texts = ["\n".join(run) + "\n" for run in runs]
    if texts and end == len(lines):
        texts[-1] = texts[-1][:-1]
    blocks = tuple(_block(text) for text in texts)
    return CutTemplate(tuple(lines[: first - 1]), tuple(lines[end:]), blocks)


def _section_indent(section: list[str]) -> int | None:
    for line in section:
        if not _BLANK_OR_COMMENT.fullmatch(line):
            indent = len(line) - len(line.lstrip(" "))
            return indent if indent > 0 else None
    return None


def _block(text: str) -> ResourceBlock:
    return ResourceBlock(text, block_digest(text))
