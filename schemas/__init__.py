"""JSON Schemas for templates, environment files and reconciler.yaml, and their loader.

Imports nothing of the project; every other layer may read it. The schemas check structure only
(which sections and keys exist, their JSON types); meaning (references, cycles, arity,
constraints) is checked by the code that reads the files.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

SCHEMA_NAMES = ("reconciler", "template", "environment")


@cache
def load_schema(name: str) -> dict[str, Any]:
    """The JSON Schema `<name>.schema.json` shipped in this package."""
    if name not in SCHEMA_NAMES:
        raise KeyError(f"no schema named {name!r}; known: {', '.join(SCHEMA_NAMES)}")
    text = resources.files(__name__).joinpath(f"{name}.schema.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema
