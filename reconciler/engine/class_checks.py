"""`isinstance` against a runtime-checkable protocol, answered once per class.

Such a check looks for every member of the protocol on the object, a few microseconds each time; on
a path taken for every resource or every call, the answer, which depends only on the class, is kept.
"""

from __future__ import annotations


class ClassCheck:
    """Whether a value is an instance of `protocol`, asked once per class of value."""

    def __init__(self, protocol: type) -> None:
        self._protocol = protocol
        self._known: dict[type, bool] = {}

    def __call__(self, value: object) -> bool:
        kind = type(value)
        known = self._known.get(kind)
        if known is None:
            known = self._known[kind] = isinstance(value, self._protocol)
        return known
