"""Property values computed by functions, checked against their schema once known without a cloud.

Heat resolves `get_param` (and every function that needs no live resource) before it checks a
resource's properties when a stack is created, so a parameter's default or given value outside a
property's allowed values or range is refused before anything is made: "Property error:
resources.R.properties.P: ...". A value that reads a resource (`get_resource`, `get_attr`) is known
only at apply: Heat does not check it before then (it skips a value depending on a resource not
yet created), and neither does this.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from reconciler.templates.definition import StackDefinition
from reconciler.templates.documents import Document
from reconciler.templates.errors import FunctionError, Problem, ResolutionError, Unresolved
from reconciler.templates.evaluation import NoCloud, is_unknown
from reconciler.templates.nodes import Call
from reconciler.templates.property_values import value_problem
from schemas.resource_schemas import TypeFacts

RESOURCE_READS = frozenset({"get_resource", "get_attr"})


def computed_value_problems(
    definition: StackDefinition, document: Document, resource: str, facts: TypeFacts
) -> Iterator[Problem]:
    """The problems of resource `resource`'s computed property values known without a cloud."""
    parsed = definition.parsed_properties(resource)
    if type(parsed) is not dict:
        return
    computed = [name for name, value in parsed.items() if _computed_without_resources(value)]
    if not computed:
        return
    try:
        resolved = definition.resolve_properties_known(resource, NoCloud())
    except (FunctionError, ResolutionError, Unresolved):
        return  # a function failing is reported where functions are checked
    prefix = f"Property error: resources.{resource}.properties"
    for name in computed:
        schema = facts.properties.get(name)
        value = resolved.get(name)
        if schema is None or value is None or is_unknown(value):
            continue
        problem = value_problem(facts.properties.get(schema.translated_to or name, schema), value)
        if problem is not None:
            message = definition.without_secrets(f"{prefix}.{name}: {problem}")
            yield document.problem(("resources", resource, "properties", name), message)


def has_computed_values(parsed: Any) -> bool:
    """Whether parsed properties hold a value computed without a cloud (one that reads parameters)."""
    return type(parsed) is dict and any(_computed_without_resources(value) for value in parsed.values())


def _computed_without_resources(value: Any) -> bool:
    """Whether `value` (parsed) holds a function call, and none that reads a resource."""
    calls = False
    pending = [value]
    while pending:
        current = pending.pop()
        kind = type(current)
        if kind is Call:
            if current.name in RESOURCE_READS:
                return False
            calls = True
            pending.append(current.args)
        elif kind is dict:
            pending.extend(current.values())
        elif kind is list:
            pending.extend(current)
    return calls
