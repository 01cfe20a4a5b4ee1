"""Keeping hidden parameters out of every text that leaves the process: one rule, used everywhere.

Notes, stored failure reasons and errors never hold parameter values by construction; the texts
they do carry (a cloud's error message, a template problem) come from elsewhere and could quote a
value back. Every such text passes through `redact` with `hidden_values` of the stack's parameters
marked `hidden: true`: every text the value holds, at any depth (a list's items, a map's values,
numbers as written), each replaced wherever it appears, longest first. Booleans, values not known
yet and texts shorter than `MIN_REDACTED_LENGTH` are left alone: blanking "1" or "no" would garble
every message without hiding anything.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from reconciler.templates.evaluation import UNKNOWN

REDACTED = "******"
MIN_REDACTED_LENGTH = 3  # shorter values ("1", "no") would blank out ordinary words of the message


def _texts(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _texts(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _texts(item)
    elif value is not None and value is not UNKNOWN and not isinstance(value, bool):
        yield str(value)


def hidden_values(parameters: Mapping[str, Any], hidden: Iterable[str]) -> frozenset[str]:
    """The texts of the hidden parameters' values (strings inside lists and maps too)."""
    return frozenset(
        text
        for name in hidden
        if name in parameters
        for text in _texts(parameters[name])
        if len(text) >= MIN_REDACTED_LENGTH
    )


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every occurrence of every secret replaced, longest first (so no fragment stays)."""
    for secret in sorted(secrets, key=len, reverse=True):
        text = text.replace(secret, REDACTED)
    return text
