"""Keeping hidden parameters out of notes: their values are redacted from every text a note carries.

Note lines never hold parameter values by construction; the texts they do carry (a cloud's error
message, a template problem) come from elsewhere and could quote a value back. Every such text
passes through `redact` with the values of the stack's parameters marked `hidden: true`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

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
    elif value is not None and not isinstance(value, bool):
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
