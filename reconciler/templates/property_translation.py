"""Heat's property translation: a deprecated property name moved to its replacement before use.

Heat translates, for example, a subnet's or port's `network_id` to `network` and a volume's
`imageRef` to `image` (the schemas mark these `translated_to`), and a server's `networks` entry's
`uuid` to `network` (`ENTRY_TRANSLATIONS`: keys inside a list property's entries), so the cloud
provider only ever sees the current name. Validation already refuses a template that gives both
names of a property at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from schemas.resource_schemas import type_schema

# (type, list property) -> {deprecated key of an entry: the key that replaces it}
ENTRY_TRANSLATIONS: Mapping[tuple[str, str], Mapping[str, str]] = {
    ("OS::Nova::Server", "networks"): {"uuid": "network"},
}
_ENTRY_TRANSLATED_TYPES = frozenset(type_name for type_name, _ in ENTRY_TRANSLATIONS)


@cache
def _translated_names(type_name: str) -> Mapping[str, str] | None:
    """The deprecated property names of `type_name` and the names replacing them (None: a type
    without a schema of its own, translated not at all)."""
    facts = type_schema(type_name)
    if facts is None or facts.placeholder:
        return None
    return {name: schema.translated_to for name, schema in facts.properties.items() if schema.translated_to}


def translated_properties(type_name: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    """`properties` with every deprecated name of `type_name` moved to the name that replaces it."""
    translations = _translated_names(type_name)
    result = dict(properties)
    if translations is None or (not translations and type_name not in _ENTRY_TRANSLATED_TYPES):
        return result
    for name, value in properties.items():
        if name not in translations:
            continue
        del result[name]
        if value is not None and result.get(translations[name]) is None:
            result[translations[name]] = value
    for (entry_type, name), renamed in ENTRY_TRANSLATIONS.items():
        if entry_type == type_name and isinstance(result.get(name), list):
            result[name] = [_entry_translated(entry, renamed) for entry in result[name]]
    return result


def _entry_translated(entry: Any, renamed: Mapping[str, str]) -> Any:
    if not isinstance(entry, Mapping) or not any(old in entry for old in renamed):
        return entry
    translated = {key: value for key, value in entry.items() if key not in renamed}
    for old, new in renamed.items():
        if entry.get(old) is not None and translated.get(new) is None:
            translated[new] = entry[old]
    return translated
