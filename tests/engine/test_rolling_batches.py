"""Heat's batches for group updates: the same sequence as Heat's engine for every case of its table.

Each case is (target, members now, max_batch_size, min_in_service) and the batches Heat runs:
(capacity, members renewed, the names renewed). As in Heat's own table, name "0" was removed by a
removal policy, so the members are "1".."N" and new ones continue from there.
"""

from __future__ import annotations

import pytest

from reconciler.engine.rolling_batches import (
    Batch,
    all_batches,
    batch_members,
    needs_update,
    next_batch,
    up_to_date_kept,
)

HEAT_CASES: dict[str, tuple[int, int, int, int, list[tuple[int, int, list[str]]]]] = {
    "4_4_1_0": (4, 4, 1, 0, [(4, 1, ["4"]), (4, 1, ["3"]), (4, 1, ["2"]), (4, 1, ["1"])]),
    "4_4_1_4": (
        4,
        4,
        1,
        4,
        [(5, 1, ["5"]), (5, 1, ["4"]), (5, 1, ["3"]), (5, 1, ["2"]), (5, 1, ["1"]), (4, 0, [])],
    ),
    "4_4_1_5": (
        4,
        4,
        1,
        5,
        [(5, 1, ["5"]), (5, 1, ["4"]), (5, 1, ["3"]), (5, 1, ["2"]), (5, 1, ["1"]), (4, 0, [])],
    ),
    "4_4_2_0": (4, 4, 2, 0, [(4, 2, ["4", "3"]), (4, 2, ["2", "1"])]),
    "4_4_2_4": (4, 4, 2, 4, [(6, 2, ["6", "5"]), (6, 2, ["4", "3"]), (6, 2, ["2", "1"]), (4, 0, [])]),
    "5_5_2_0": (5, 5, 2, 0, [(5, 2, ["5", "4"]), (5, 2, ["3", "2"]), (5, 1, ["1"])]),
    "5_5_2_4": (5, 5, 2, 4, [(6, 2, ["6", "5"]), (6, 2, ["4", "3"]), (6, 2, ["2", "1"]), (5, 0, [])]),
    "3_3_2_0": (3, 3, 2, 0, [(3, 2, ["3", "2"]), (3, 1, ["1"])]),
    "3_3_2_4": (3, 3, 2, 4, [(5, 2, ["5", "4"]), (5, 2, ["3", "2"]), (4, 1, ["1"]), (3, 0, [])]),
    "4_4_4_0": (4, 4, 4, 0, [(4, 4, ["4", "3", "2", "1"])]),
    "4_4_5_0": (4, 4, 5, 0, [(4, 4, ["4", "3", "2", "1"])]),
    "4_4_4_1": (4, 4, 4, 1, [(5, 4, ["5", "4", "3", "2"]), (4, 1, ["1"])]),
    "4_4_6_1": (4, 4, 6, 1, [(5, 4, ["5", "4", "3", "2"]), (4, 1, ["1"])]),
    "4_4_4_2": (4, 4, 4, 2, [(6, 4, ["6", "5", "4", "3"]), (4, 2, ["2", "1"])]),
    "4_4_4_4": (4, 4, 4, 4, [(8, 4, ["8", "7", "6", "5"]), (8, 4, ["4", "3", "2", "1"]), (4, 0, [])]),
    "4_4_5_6": (4, 4, 5, 6, [(8, 4, ["8", "7", "6", "5"]), (8, 4, ["4", "3", "2", "1"]), (4, 0, [])]),
    "4_7_1_0": (4, 7, 1, 0, [(4, 1, ["4"]), (4, 1, ["3"]), (4, 1, ["2"]), (4, 1, ["1"])]),
    "4_7_1_4": (4, 7, 1, 4, [(5, 1, ["4"]), (5, 1, ["3"]), (5, 1, ["2"]), (5, 1, ["1"]), (4, 0, [])]),
    "4_7_1_5": (4, 7, 1, 5, [(5, 1, ["4"]), (5, 1, ["3"]), (5, 1, ["2"]), (5, 1, ["1"]), (4, 0, [])]),
    "4_7_2_0": (4, 7, 2, 0, [(4, 2, ["4", "3"]), (4, 2, ["2", "1"])]),
    "4_7_2_4": (4, 7, 2, 4, [(6, 2, ["4", "3"]), (6, 2, ["2", "1"]), (4, 0, [])]),
    "5_7_2_0": (5, 7, 2, 0, [(5, 2, ["5", "4"]), (5, 2, ["3", "2"]), (5, 1, ["1"])]),
    "5_7_2_4": (5, 7, 2, 4, [(6, 2, ["5", "4"]), (6, 2, ["3", "2"]), (5, 1, ["1"])]),
    "4_7_4_4": (4, 7, 4, 4, [(8, 4, ["8", "4", "3", "2"]), (5, 1, ["1"]), (4, 0, [])]),
    "4_7_5_6": (4, 7, 5, 6, [(8, 4, ["8", "4", "3", "2"]), (5, 1, ["1"]), (4, 0, [])]),
    "6_4_1_0": (
        6,
        4,
        1,
        0,
        [(5, 1, ["5"]), (6, 1, ["6"]), (6, 1, ["4"]), (6, 1, ["3"]), (6, 1, ["2"]), (6, 1, ["1"])],
    ),
    "6_4_1_4": (
        6,
        4,
        1,
        4,
        [(5, 1, ["5"]), (6, 1, ["6"]), (6, 1, ["4"]), (6, 1, ["3"]), (6, 1, ["2"]), (6, 1, ["1"])],
    ),
    "6_4_2_0": (6, 4, 2, 0, [(6, 2, ["5", "6"]), (6, 2, ["4", "3"]), (6, 2, ["2", "1"])]),
    "6_5_2_4": (6, 5, 2, 4, [(6, 2, ["6", "5"]), (6, 2, ["4", "3"]), (6, 2, ["2", "1"])]),
    "6_3_2_0": (6, 3, 2, 0, [(5, 2, ["4", "5"]), (6, 2, ["6", "3"]), (6, 2, ["2", "1"])]),
    "6_4_5_0": (6, 4, 5, 0, [(6, 5, ["5", "6", "4", "3", "2"]), (6, 1, ["1"])]),
    "6_4_6_1": (6, 4, 6, 1, [(7, 6, ["5", "6", "7", "4", "3", "2"]), (6, 1, ["1"])]),
    "6_4_4_4": (6, 4, 4, 4, [(8, 4, ["8", "7", "6", "5"]), (8, 4, ["4", "3", "2", "1"]), (6, 0, [])]),
    "6_4_5_6": (
        6,
        4,
        5,
        6,
        [(9, 5, ["9", "8", "7", "6", "5"]), (10, 4, ["10", "4", "3", "2"]), (7, 1, ["1"]), (6, 0, [])],
    ),
}

NAMES = [str(index) for index in range(1, 40)]  # "0" removed, as in Heat's table


@pytest.mark.parametrize("case", sorted(HEAT_CASES))
def test_batches_are_heats(case: str) -> None:
    target, current, size, in_service, expected = HEAT_CASES[case]

    batches = all_batches(target, current, size, in_service)

    assert [(batch.capacity, batch.renewed) for batch in batches] == [(c, r) for c, r, _ in expected]


@pytest.mark.parametrize("case", sorted(HEAT_CASES))
def test_each_batch_renews_the_members_heat_renews_decided_from_where_the_group_stands(case: str) -> None:
    """The coordinator keeps no count between batches: each is decided from the members there now."""
    target, current, size, in_service, expected = HEAT_CASES[case]
    members = {name: False for name in NAMES[:current]}  # name -> has the new definition

    for capacity, renewed, names in expected:
        assert needs_update(target, len(members), up_to_date_kept(NAMES, members, target))
        batch = next_batch(target, len(members), up_to_date_kept(NAMES, members, target), size, in_service)
        assert batch == Batch(capacity, renewed)

        chosen = batch_members(NAMES, members, target, batch)

        assert sorted([*chosen.create, *chosen.update], key=int) == sorted(names, key=int)
        for name in chosen.delete:
            del members[name]
        members.update({name: True for name in (*chosen.create, *chosen.update)})
        assert sorted(members, key=int) == NAMES[:capacity]
    assert not needs_update(target, len(members), up_to_date_kept(NAMES, members, target))
    assert all(members.values())


def test_batch_create_is_a_rolling_update_from_nothing() -> None:
    """Heat creates a group with `batch_create` as a rolling update from no members, none in service."""
    assert all_batches(6, 0, 2, 0) == [Batch(2, 2), Batch(4, 2), Batch(6, 2)]
    assert all_batches(5, 0, 2, 0) == [Batch(2, 2), Batch(4, 2), Batch(5, 1)]
