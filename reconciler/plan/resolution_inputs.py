"""The digest of everything a resource's resolved properties are made from, so a plan can tell a
resource unchanged without resolving it.

Resolving a plain resource's properties is a pure function of its type and properties as written,
the stack's evaluation scope (template version, parameters, conditions, files read with get_file,
the facade, which resources are absent by condition) and the physical ids of the resources it
requires. Apply records this digest beside the properties it applied; a plan whose digest for the
resource is the recorded one knows the resolution would give back the recorded properties, and
decides the resource unchanged in a few microseconds instead of resolving and comparing it.

Attributes are not in the digest: a resource reading any (`get_attr`, `Fn::GetAtt`) gets none
recorded, and is always resolved. Nor are hidden parameters' values (a digest of a secret would let
anyone holding the database test guesses of it): a stack with hidden parameters has no digests.
"""

from __future__ import annotations

import hashlib
import marshal
import weakref
from collections.abc import Callable, Collection, Mapping
from typing import Any, Protocol, runtime_checkable

from reconciler.templates.evaluation import UNKNOWN

# Names how the digest is made (and the property translation it relies on); a change starts anew.
INPUTS_FORMAT = "resolution-inputs-1"
ATTRIBUTE_READS = frozenset({"get_attr", "Fn::GetAtt"})
# marshal's first format: no references between values and no interned flag, so equal values
# always give equal bytes, whatever process made them.
_MARSHAL_VERSION = 0


@runtime_checkable
class ScopedStack(Protocol):
    """What the digest reads of a `StackDefinition`."""

    @property
    def hidden_parameters(self) -> frozenset[str]: ...

    @property
    def pseudo_parameters(self) -> Mapping[str, str]: ...

    @property
    def evaluation(self) -> Any: ...

    @property
    def resources(self) -> Mapping[str, Any]: ...

    def graph(self) -> Mapping[str, frozenset[str]]: ...


_contexts: weakref.WeakKeyDictionary[Any, bytes | None] = weakref.WeakKeyDictionary()


def stack_inputs(definition: ScopedStack) -> bytes | None:
    """The part of every resource's digest the whole stack shares (None: no digests for this stack).

    Kept per definition: apply asks for it once per resource decided."""
    try:
        return _contexts[definition]
    except KeyError:
        pass
    except TypeError:  # not weakly referable: made each time
        return _stack_inputs(definition)
    made = _contexts[definition] = _stack_inputs(definition)
    return made


def _stack_inputs(definition: ScopedStack) -> bytes | None:
    if definition.hidden_parameters:
        return None
    scope = definition.evaluation
    facade = scope.facade
    document = (
        INPUTS_FORMAT,
        scope.version.date,
        sorted((name, _held(value)) for name, value in scope.parameters.items()),
        sorted(definition.pseudo_parameters.items()),
        sorted(scope.files.items()),
        sorted(scope.conditions.items()),
        [facade.metadata, facade.deletion_policy, facade.update_policy],
        repr(scope.limits),
        sorted(scope.group_resources),
        sorted(scope.all_resources - scope.resources),
    )
    try:
        return hashlib.blake2b(marshal.dumps(document, _MARSHAL_VERSION), digest_size=16).digest()
    except (ValueError, TypeError):  # a value marshal cannot hold: no digests
        return None


def _held(value: Any) -> Any:
    """A parameter's value as marshal holds it: one not known before apply as a tuple (which no
    parameter's value is)."""
    return ("unknown",) if value is UNKNOWN else value


def resource_inputs(
    shared: bytes,
    type_name: str,
    properties: Any,
    requires: Collection[str],
    physical_id: Callable[[str], str | None],
) -> str | None:
    """The digest of one resource's resolution inputs: `shared` (`stack_inputs`), its type, its
    properties as written, and the physical id of each resource it `requires` (None when one has
    none, or a value cannot be held)."""
    required = sorted(requires) if len(requires) > 1 else list(requires)
    ids = [physical_id(name) for name in required]
    if None in ids:
        return None
    try:
        text = marshal.dumps((shared, type_name, properties, required, ids), _MARSHAL_VERSION)
    except (ValueError, TypeError):
        return None
    return hashlib.blake2b(text, digest_size=16).hexdigest()


def reads_attributes(value: Any) -> bool:
    """Whether a snippet as written reads any resource's attributes."""
    kind = type(value)
    if kind is dict:
        if not ATTRIBUTE_READS.isdisjoint(value):
            return True
        return any(reads_attributes(item) for item in value.values())
    if kind is list:
        return any(reads_attributes(item) for item in value)
    return isinstance(value, Mapping) and reads_attributes(dict(value))
