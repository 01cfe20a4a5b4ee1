"""Parsed resource blocks kept in the state store: what one process parsed, another reuses."""

from __future__ import annotations

import marshal

from reconciler.daemon.stored_blocks import StoredBlocks
from reconciler.templates import Limits
from reconciler.templates.block_parsing import block_slot, parse_by_blocks
from reconciler.templates.yaml_building import build_yaml
from state import open_store
from timekeeping.testing import SteppedClock

TEMPLATE = (
    "heat_template_version: 2018-08-31\nresources:\n"
    "  a:\n    type: OS::Heat::Value\n    properties: {value: [1, 2.5, null, true, 'x']}\n"
    "  b:\n    type: OS::Heat::Value\n    properties: {value: !!binary aGk=}\n"
)


def test_blocks_one_process_parsed_are_found_by_the_next(database_url: str) -> None:
    clock = SteppedClock()
    first = open_store(database_url, clock=clock)
    parse_by_blocks("t.yaml", TEMPLATE, Limits(), StoredBlocks(first.template_blocks()))
    first.close()
    second = open_store(database_url, clock=clock)
    kept = StoredBlocks(second.template_blocks()).known(block_slot("t.yaml", Limits()))
    second.close()
    # each block kept as its resource's name and its body, marshalled
    assert {name: marshal.loads(body) for name, body in kept.values()} == build_yaml(
        "t.yaml", TEMPLATE, Limits()
    )["resources"]


def test_a_slot_that_does_not_read_back_is_empty(database_url: str) -> None:
    store = open_store(database_url, clock=SteppedClock())
    store.template_blocks().keep("slot", b"not marshal data")
    assert StoredBlocks(store.template_blocks()).known("slot") == {}
    store.template_blocks().keep("slot", b"\xe9\x01\x00\x00\x00")  # a marshalled int, not a dict
    assert StoredBlocks(store.template_blocks()).known("slot") == {}
    store.close()
