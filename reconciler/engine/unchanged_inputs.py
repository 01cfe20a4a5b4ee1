"""Whether a resource can keep last generation's decision without resolving its properties again.

Resolving 50,000 resources' properties costs seconds; a commit changing one resource should not.
A resource settled last generation keeps its decision when its definition is the same object value,
nothing it reads changed value this generation, and nothing else its properties may read changed:
the parameters and every input file other than the template itself (environments, `get_file`
targets, nested templates). When in doubt (a definition without these views), resolve.
"""

from __future__ import annotations

from typing import Any


def inputs_beside_template_unchanged(previous: Any, current: Any) -> bool:
    """Parameters and every input file except the template itself are the same in both definitions."""
    try:
        if dict(previous.parameters) != dict(current.parameters):
            return False
        before = frozenset(previous.input_files) - {previous.template_path}
        after = frozenset(current.input_files) - {current.template_path}
        if before != after:
            return False
        return bool(previous.context.file_digests(before) == current.context.file_digests(after))
    except AttributeError:
        return False
