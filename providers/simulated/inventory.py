"""One collection of the simulated cloud (servers, ports, ...), indexed for the lists clients make.

Bodies are stored as the API shows them. Lookups by id are a dict access; lists filtered by tag or
name read an index instead of scanning, and keep creation order (a sequence number per item) so
marker pagination is stable. Bodies are replaced wholesale on change, never mutated in place,
so a body handed out earlier stays a consistent snapshot. Each change takes a new `version` from
one counter of the process, so a version is never seen twice, even across worlds.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

Body = dict[str, Any]


def body_tags(body: Mapping[str, Any]) -> tuple[str, ...]:
    """The tags of a body: Nova and Neutron keep a `tags` list; Cinder's marker lives in metadata."""
    tags = tuple(body.get("tags") or ())
    metadata = body.get("metadata")
    if not metadata:
        return tags
    return (*tags, *[f"{key}={value}" for key, value in metadata.items()])


INDEXED_FIELDS = ("name", "tags", "metadata")
_VERSIONS = itertools.count(1)  # next() is atomic: inventories of every world draw from it


def _same_keys(previous: Body, body: Body) -> bool:
    """Whether two versions of an item have the same name, tags and metadata (the indexed fields)."""
    for field in INDEXED_FIELDS:
        before, after = previous.get(field), body.get(field)
        if before is not after and before != after:
            return False
    return True


class Inventory:
    """The items of one collection by id, with indexes by tag (and metadata pair) and by name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._items: dict[str, Body] = {}
        self._order: dict[str, int] = {}
        self._by_tag: dict[str, set[str]] = {}
        self._by_name: dict[str, set[str]] = {}
        self._sequence = 0
        self.version = next(_VERSIONS)  # another whenever an item is added, replaced or removed

    def __len__(self) -> int:
        return len(self._items)

    def __contains__(self, item_id: object) -> bool:
        return item_id in self._items

    def __iter__(self) -> Iterator[Body]:
        return iter(self._items.values())

    def get(self, item_id: str) -> Body | None:
        return self._items.get(item_id)

    def put(self, body: Body) -> None:
        """Add or replace an item, keeping its place in creation order and re-indexing it."""
        item_id = body["id"]
        previous = self._items.get(item_id)
        self._items[item_id] = body
        self.version = next(_VERSIONS)
        if previous is None:
            self._sequence += 1
            self._order[item_id] = self._sequence
        elif _same_keys(previous, body):
            return  # a status or field change: what the indexes hold is unchanged
        else:
            self._unindex(item_id, previous)
        self._index(item_id, body)

    def pop(self, item_id: str) -> Body | None:
        body = self._items.pop(item_id, None)
        if body is not None:
            self.version = next(_VERSIONS)
            self._unindex(item_id, body)
            del self._order[item_id]
        return body

    def select(
        self,
        *,
        name: str | None = None,
        tags: Iterable[str] = (),
        tags_any: Iterable[str] = (),
    ) -> list[Body]:
        """Items having `name`, every tag of `tags` and one of `tags_any`, in creation order."""
        candidates: set[str] | None = None
        if name is not None:
            candidates = set(self._by_name.get(name, ()))
        for tag in tags:
            having = self._by_tag.get(tag, set())
            candidates = set(having) if candidates is None else candidates & having
        any_of = list(tags_any)
        if any_of:
            union: set[str] = set().union(*(self._by_tag.get(tag, set()) for tag in any_of))
            candidates = union if candidates is None else candidates & union
        if candidates is None:
            return list(self._items.values())
        return [self._items[item_id] for item_id in sorted(candidates, key=self._order.__getitem__)]

    def _index(self, item_id: str, body: Body) -> None:
        for tag in body_tags(body):
            self._by_tag.setdefault(tag, set()).add(item_id)
        name = body.get("name")
        if name:
            self._by_name.setdefault(name, set()).add(item_id)

    def _unindex(self, item_id: str, body: Body) -> None:
        for tag in body_tags(body):
            self._discard(self._by_tag, tag, item_id)
        name = body.get("name")
        if name:
            self._discard(self._by_name, name, item_id)

    @staticmethod
    def _discard(index: dict[str, set[str]], key: str, item_id: str) -> None:
        members = index.get(key)
        if members is not None:
            members.discard(item_id)
            if not members:
                del index[key]
