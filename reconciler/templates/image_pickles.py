"""How the parsed properties in load images are pickled: named tuples made in C, and no class read
back but those parsed properties hold; each reused resource's pickled apart and read back when
first asked for.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from reconciler.templates.nodes import Call

_IMAGE_CLASSES = {("reconciler.templates.nodes", "Call")}


def named_tuple(kind: type[Any], items: tuple[Any, ...]) -> Any:
    """The named tuple of class `kind` holding `items` (what an image names to make one)."""
    return tuple.__new__(kind, items)


def _restored_with_tuple_new(value: tuple[Any, ...]) -> tuple[Any, Any]:
    """A named tuple pickled as `named_tuple(its class, its items)`: the reader makes it with
    `tuple.__new__` itself, in C, without the class's Python-level `__new__` (an image holds one
    per call)."""
    return named_tuple, (type(value), tuple(value))


_IMAGE_REDUCERS: dict[type[Any], Callable[[Any], tuple[Any, Any]]] = {Call: _restored_with_tuple_new}


class _ImageUnpickler(pickle.Unpickler):
    """Reads an image back, making no object but those an image holds."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) == (__name__, named_tuple.__name__):
            return tuple.__new__
        if (module, name) not in _IMAGE_CLASSES:
            raise pickle.UnpicklingError(f"an image holds no {module}.{name}")
        return super().find_class(module, name)


def image_dumps(value: Any) -> bytes:
    """`value` pickled as images are."""
    content = io.BytesIO()
    pickler = pickle.Pickler(content, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _IMAGE_REDUCERS
    pickler.dump(value)
    return content.getvalue()


class PicklerApart:
    """Pickles many small values one by one as images are pickled, with one pickler."""

    def __init__(self) -> None:
        self._buffer = io.BytesIO()
        self._pickler = pickle.Pickler(self._buffer, protocol=pickle.HIGHEST_PROTOCOL)
        self._pickler.dispatch_table = _IMAGE_REDUCERS

    def dumps(self, value: Any) -> bytes:
        self._buffer.seek(0)
        self._buffer.truncate()
        self._pickler.clear_memo()
        self._pickler.dump(value)
        return self._buffer.getvalue()


def image_loads(content: bytes) -> Any:
    """A value `image_dumps` made (`pickle.UnpicklingError` and the like when it is not one)."""
    return _ImageUnpickler(io.BytesIO(content)).load()


class ParsedProperties(MutableMapping[str, Any]):
    """Resources' parsed properties by name; those reused from a load image are held pickled until
    first read (a plan of a one-line change reads a few of 50,000).

    Reading is safe from several threads at once, as a definition is shared read only: a value is
    put among the decoded ones before its pickle is dropped, and a reader missing both looks again.
    Writing (`__setitem__`, `__delitem__`) is the binding's alone, before the definition is shared.
    """

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}
        self._pickled: dict[str, bytes] = {}

    def pickled_store(self) -> dict[str, bytes]:
        """Where a binding puts the pickled properties of names not held yet, one by one (a method
        call per resource of a large template would cost more than the assignment)."""
        return self._pickled

    def get(self, name: str, default: Any = None) -> Any:
        found = self._values.get(name, _MISSING)
        if found is not _MISSING:
            return found
        content = self._pickled.get(name)
        if content is None:
            return self._values.get(name, default)  # decoded by another reader meanwhile
        value = self._values.setdefault(name, image_loads(content))
        self._pickled.pop(name, None)
        return value

    def __getitem__(self, name: str) -> Any:
        found = self.get(name, _MISSING)
        if found is _MISSING:
            raise KeyError(name)
        return found

    def __setitem__(self, name: str, value: Any) -> None:
        self._values[name] = value
        self._pickled.pop(name, None)

    def __delitem__(self, name: str) -> None:
        if self._pickled.pop(name, None) is None:
            del self._values[name]

    def __contains__(self, name: object) -> bool:
        return name in self._pickled or name in self._values

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())

    def _names(self) -> dict[str, None]:
        return dict.fromkeys([*self._values, *self._pickled])


_MISSING = object()
