"""Markers whose names push on what services keep: the identities `find_by_marker` must find again."""

from __future__ import annotations

import itertools

from providers.interface import Marker

_records = itertools.count(1)
LONG_NESTED_STACK = "c1/" + "/".join(f"tier{index}/{index}" for index in range(30))  # over 255 characters

NAMES = {
    "plain": ("app", "web"),
    "nested": ("c1/nodes/17", "port"),
    "long": (LONG_NESTED_STACK, "r" * 120),
    "colon": ("c1/db:primary/0", "volume:data"),
    "comma": ("app", "a,b"),
}


def named_marker(case: str) -> Marker:
    stack, resource = NAMES[case]
    return Marker(
        stack=stack, resource=resource, record_id=f"{next(_records):08d}-0000-4000-8000-000000000000"
    )
