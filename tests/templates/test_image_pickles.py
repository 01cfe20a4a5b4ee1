"""Parsed properties held pickled: a mapping like any other to its readers, whatever it holds."""

from __future__ import annotations

import pickle
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from reconciler.templates.image_pickles import ParsedProperties, PicklerApart, image_dumps, image_loads
from reconciler.templates.nodes import Call


def test_pickled_and_plain_values_read_alike() -> None:
    parsed = ParsedProperties()
    value = {"name": Call("get_param", "prefix", ("resources", "a", "properties", "name")), "size": 1}
    parsed.pickled_store()["a"] = PicklerApart().dumps(value)
    parsed["b"] = {"size": 2}
    assert "a" in parsed and "b" in parsed and "c" not in parsed
    assert len(parsed) == 2 and sorted(parsed) == ["a", "b"]
    assert parsed["a"] == value and parsed.get("a") == value
    assert parsed.get("c") is None and parsed.get("c", {}) == {}
    with pytest.raises(KeyError):
        _ = parsed["c"]
    parsed["a"] = {"size": 3}
    del parsed["b"]
    assert dict(parsed) == {"a": {"size": 3}}


def test_an_image_reads_back_no_class_it_does_not_hold() -> None:
    assert image_loads(image_dumps([Call("get_attr", ["a", "b"], ())])) == [Call("get_attr", ["a", "b"], ())]
    with pytest.raises(pickle.UnpicklingError):
        image_loads(pickle.dumps(pytest.raises))  # a function: pickled by its module and name


def test_readers_on_many_threads_all_read_every_value() -> None:
    parsed = ParsedProperties()
    apart = PicklerApart()
    values = {f"r{index}": {"size": index, "name": f"n{index}"} for index in range(2_000)}
    store = parsed.pickled_store()
    for name, value in values.items():
        store[name] = apart.dumps(value)

    def read_all(_: int) -> bool:
        return all(parsed.get(name) == value for name, value in values.items())

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch between any two steps of a read
    try:
        with ThreadPoolExecutor(max_workers=8) as pool:
            assert all(pool.map(read_all, range(8)))
    finally:
        sys.setswitchinterval(interval)
    assert len(parsed) == len(values) and dict(parsed) == values
