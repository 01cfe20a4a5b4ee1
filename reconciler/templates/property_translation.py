"""Heat's property translation: a deprecated property name moved to its replacement before use.

Heat translates, for example, a subnet's or port's `network_id` to `network` and a volume's
`imageRef` to `image` (the schemas mark these `translated_to`), so the cloud provider only ever
sees the current name. Validation already refuses a template that gives both names at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from schemas.resource_schemas import type_schema


def translated_properties(type_name: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """`properties` with every deprecated name of `type_name` moved to the name that replaces it."""
    facts = type_schema(type_name)
    if facts is None or facts.placeholder:
        return dict(properties)
    result = dict(properties)
    for name, value in properties.items():
        schema = facts.properties.get(name)
        if schema is None or schema.translated_to is None:
            continue
        del result[name]
        if value is not None and result.get(schema.translated_to) is None:
            result[schema.translated_to] = value
    return result
