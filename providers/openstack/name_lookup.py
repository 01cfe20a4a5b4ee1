"""Names of flavors, images, networks, subnets and security groups turned into ids.

Heat templates name these by name or id. Each kind is read with one (paged) list call and cached;
a name the cache does not know triggers one fresh list (the network may have been created a
moment ago), and only then an error. A value shaped like a UUID is taken as an id without a call.
Safe to share between threads: each kind refreshes under its own lock.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from providers.interface import Permanent

UUID_SHAPE = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")

ListNamed = Callable[[], Iterable[dict[str, Any]]]


def looks_like_id(value: str) -> bool:
    return bool(UUID_SHAPE.match(value))


@dataclass
class NamedKind:
    """One kind of named thing (e.g. "network"), its list call and the cached name -> ids table."""

    kind: str
    list_named: ListNamed
    ids_by_name: dict[str, list[str]] = field(default_factory=dict)
    names_by_id: dict[str, str] = field(default_factory=dict)
    loaded: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self) -> None:
        ids_by_name: dict[str, list[str]] = {}
        names_by_id: dict[str, str] = {}
        for item in self.list_named():
            name = item.get("name") or ""
            ids_by_name.setdefault(name, []).append(item["id"])
            names_by_id[item["id"]] = name
        self.ids_by_name, self.names_by_id, self.loaded = ids_by_name, names_by_id, True


class NameLookup:
    """Resolves names to ids per kind, with one cached list call per kind."""

    def __init__(self, kinds: dict[str, ListNamed]) -> None:
        self._kinds = {kind: NamedKind(kind, list_named) for kind, list_named in kinds.items()}

    def id_of(self, kind: str, name_or_id: str) -> str:
        if looks_like_id(name_or_id):
            return name_or_id
        named = self._kinds[kind]
        with named.lock:
            known = name_or_id in named.ids_by_name or name_or_id in named.names_by_id
            if not named.loaded or not known:
                named.refresh()
            if name_or_id in named.names_by_id:
                return name_or_id
            ids = named.ids_by_name.get(name_or_id, [])
        if not ids:
            raise Permanent(f"no {kind} named {name_or_id!r}")
        if len(ids) > 1:
            raise Permanent(f"{len(ids)} {kind}s are named {name_or_id!r}; name one by id")
        return ids[0]

    def ids_named(self, kind: str, name: str) -> list[str]:
        """The ids the cache knows for a name (listing once if the kind was never listed)."""
        named = self._kinds[kind]
        with named.lock:
            if not named.loaded:
                named.refresh()
            return list(named.ids_by_name.get(name, []))

    def forget(self, kind: str) -> None:
        """Drop a kind's cache (after this provider created or deleted one of them)."""
        named = self._kinds[kind]
        with named.lock:
            named.loaded = False
