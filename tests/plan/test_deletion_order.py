"""deletion_waves: what left the template goes in reverse dependency order, read from records."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.plan import RecordedResource, deletion_waves


def record(name: str, **properties: Any) -> RecordedResource:
    return RecordedResource(name, "T", f"id-{name}", properties)


RECORDS = {
    "net": record("net"),
    "subnet": record("subnet", network="id-net"),
    "port": record("port", network="id-net", fixed_ips=[{"subnet": "id-subnet"}]),
    "server": record("server", networks=[{"port": "id-port"}]),
    "lonely": record("lonely"),
}

CASES = [
    ({"server", "port", "subnet", "net"}, (("server",), ("port",), ("subnet",), ("net",))),
    ({"net", "lonely"}, (("lonely", "net"),)),
    ({"port", "net"}, (("port",), ("net",))),
    (set(), ()),
]


@pytest.mark.parametrize(("doomed", "waves"), CASES)
def test_referring_records_are_deleted_first(doomed: set[str], waves: tuple[tuple[str, ...], ...]) -> None:
    assert deletion_waves(frozenset(doomed), RECORDS) == waves


def test_records_referring_to_each_other_are_deleted_together() -> None:
    cycle = {
        "a": RecordedResource("a", "T", "id-a", {"peer": "id-b"}),
        "b": RecordedResource("b", "T", "id-b", {"peer": "id-a"}),
    }
    assert deletion_waves(frozenset(cycle), cycle) == (("a", "b"),)
