"""Values a plan cannot know before apply: how they compare and how they are shown.

Resolving a resource's properties against what is recorded leaves the `UNKNOWN` marker wherever a
value comes from a resource about to change; such a property always counts as changed.
"""

from __future__ import annotations

from typing import Any

from reconciler.templates.evaluation import UNKNOWN

KNOWN_AFTER_APPLY = "(known after apply)"


def shown_unknowns(value: Any) -> Any:
    """`value` with every unknown part as the text a plan shows for it."""
    if value is UNKNOWN:
        return KNOWN_AFTER_APPLY
    if isinstance(value, dict):
        return {key: shown_unknowns(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shown_unknowns(item) for item in value]
    return value
