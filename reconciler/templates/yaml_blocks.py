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
import itertools
import re
from dataclasses import dataclass
from typing import NamedTuple

# Every pattern starts at a line break (the text is searched with one put before it): a literal
# first character lets the regular expression engine skip ahead instead of trying every position.
_SECTION = re.compile(r"\nresources:[ \t]*(?:#[^\n]*)?\r?(?=\n|\Z)")
_TOP_LEVEL_LINE = re.compile(r"\n[^ #\r\n]")  # neither blank, a comment nor indented
_FIRST_CONTENT = re.compile(r"\n( *)[^ #\r\n]")
_TAB_IN_INDENT = re.compile(r"\n *\t")


class ResourceBlock(NamedTuple):
    """One resource's lines, as written, and the digest naming them (a named tuple: there is one per
    resource of a large template)."""

    text: str
    digest: bytes


@dataclass(frozen=True)
class CutTemplate:
    """A template's text before its `resources:` line and after that section, and its resources'
    blocks in the order written."""

    before: str
    after: str
    blocks: tuple[ResourceBlock, ...]

    def rest(self, resources_value: str) -> str:
        """The template's other sections, with `resources: <resources_value>` in the section's place."""
        return f"{self.before}resources: {resources_value}\n{self.after}"


def block_digest(text: str) -> bytes:
    """The digest naming a block's text (and so its parsed value)."""
    return hashlib.blake2b(text.encode("utf-8"), digest_size=20).digest()


def cut_template(text: str) -> CutTemplate | None:
    """`text` cut at its resources, or None when it is not plainly block-structured there."""
    padded = "\n" + text  # padded[i] is text[i - 1]
    if len(_SECTION.findall(padded)) != 1:
        return None
    line = _SECTION.search(padded)
    assert line is not None
    first = line.end()  # the line break ending `resources:`
    following = _TOP_LEVEL_LINE.search(padded, first)
    end = following.start() if following is not None else len(padded)
    section = padded[first:end]
    content = _FIRST_CONTENT.search(section)
    if content is None or not content.group(1) or _TAB_IN_INDENT.search(section):
        return None
    indent = len(content.group(1))
    if indent > 1 and re.search(rf"\n {{0,{indent - 1}}}[^ #\r\n]", section):
        return None  # a line of the section under its first resource's indentation
    starts = [first + found.start() + 1 for found in re.finditer(rf"\n {{{indent}}}[^ #\r\n]", section)]
    # each block's lines with the line break ending each (the last line of the text may have none)
    starts.append(min(end + 1, len(padded)))
    texts = [padded[start:stop] for start, stop in itertools.pairwise(starts)]
    blake2b = hashlib.blake2b
    blocks = tuple(
        _new_block(ResourceBlock, (text, blake2b(text.encode("utf-8"), digest_size=20).digest()))
        for text in texts
    )
    return CutTemplate(text[: line.start()], text[end:], blocks)


_new_block = tuple.__new__  # a ResourceBlock without the named tuple's Python-level __new__
