"""The notices of resources' signals name what waits for them, as far as a notice holds."""

from __future__ import annotations

from state.signal_notices import MOST_NAMED_BYTES, RESOURCE_SIGNALS, resource_notice, resources_named


def test_a_notice_names_the_resources_waiting_for_the_signals_kept() -> None:
    assert resources_named(resource_notice({"b-id", "a-id"})) == frozenset({"a-id", "b-id"})


def test_a_notice_too_long_or_naming_nothing_means_any_resource_waiting_for_a_signal() -> None:
    many = {f"{n:036d}" for n in range(MOST_NAMED_BYTES // 36 + 1)}
    assert resource_notice(many) == RESOURCE_SIGNALS
    assert resource_notice(None) == RESOURCE_SIGNALS
    assert resource_notice({"with,comma"}) == RESOURCE_SIGNALS
    assert resources_named(RESOURCE_SIGNALS) is None
