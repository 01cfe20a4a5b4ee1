"""The native Heat types: what each returns on create, update and observe, on a stepped clock."""

from __future__ import annotations

import random
import string

import pytest

from providers.heat import NativeHeatProvider
from providers.heat.native_types import NATIVE_TYPES
from providers.interface import LiveStatus, Marker, Permanent
from timekeeping.testing import SteppedClock

MARKER = Marker("stack", "thing", "r1")


def provider(clock: SteppedClock | None = None) -> NativeHeatProvider:
    return NativeHeatProvider(clock or SteppedClock(), random.Random(7))


def test_none_and_value_are_ready_at_once_and_value_exposes_its_value() -> None:
    heat = provider()
    assert heat.create("OS::Heat::None", {"anything": 1}, MARKER).status is LiveStatus.READY
    value = heat.create("OS::Heat::Value", {"value": [1, 2]}, MARKER)
    assert (value.status, value.attributes) == (LiveStatus.READY, {"value": [1, 2]})
    assert heat.update(
        "OS::Heat::Value", value.physical_id, {"value": 3}, frozenset({"value"})
    ).attributes == {"value": 3}


@pytest.mark.parametrize(
    ("properties", "length", "must_contain"),
    [
        ({}, 32, string.ascii_letters + string.digits),
        ({"length": 8, "character_classes": [{"class": "digits", "min": 8}]}, 8, string.digits),
        (
            {"length": 12, "character_sequences": [{"sequence": "!@", "min": 2}]},
            12,
            "!@",
        ),
    ],
)
def test_random_string_honours_length_classes_and_sequences(
    properties: dict[str, object], length: int, must_contain: str
) -> None:
    value = provider().create("OS::Heat::RandomString", properties, MARKER).attributes["value"]
    assert len(value) == length
    assert any(character in must_contain for character in value)


def test_random_string_with_impossible_minimums_fails_permanently() -> None:
    properties = {"length": 2, "character_classes": [{"class": "digits", "min": 3}]}
    with pytest.raises(Permanent, match="shorter"):
        provider().create("OS::Heat::RandomString", properties, MARKER)


def test_test_resource_waits_on_the_injected_clock_then_exposes_its_output() -> None:
    clock = SteppedClock()
    heat = provider(clock)
    created = heat.create(
        "OS::Heat::TestResource", {"value": "v", "wait_secs": 5, "attr_wait_secs": 8}, MARKER
    )
    assert created.status is LiveStatus.IN_PROGRESS
    clock.advance(5)
    seen = heat.observe("OS::Heat::TestResource", [created.physical_id])[created.physical_id]
    assert (seen.status, seen.attributes) == (LiveStatus.READY, {})
    clock.advance(3)
    seen = heat.observe("OS::Heat::TestResource", [created.physical_id])[created.physical_id]
    assert seen.attributes == {"output": "v"}


def test_test_resource_fail_is_permanent_and_update_replace_forces_replacement() -> None:
    with pytest.raises(Permanent, match="Test Resource failed"):
        provider().create("OS::Heat::TestResource", {"fail": True}, MARKER)
    rules = NATIVE_TYPES["OS::Heat::TestResource"]
    assert rules.replace_reasons({"value"}) == frozenset()
    assert "update_replace" in rules.replace_reasons_given({"value"}, {"update_replace": True})  # type: ignore[attr-defined]


def test_none_updates_every_property_in_place() -> None:
    assert NATIVE_TYPES["OS::Heat::None"].replace_reasons({"whatever"}) == frozenset()
