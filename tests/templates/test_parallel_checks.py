"""Checking snippets in two processes gives exactly the problems, in the order, of one process."""

from __future__ import annotations

import pytest

from reconciler.templates import Limits, MemorySource, TemplateError, load_stack
from reconciler.templates.errors import Problem
from reconciler.templates.parallel_checks import problems_in_two


def _odd(number: int) -> Problem | None:
    return Problem("t.yaml", number, 1, f"{number} is odd") if number % 2 else None


@pytest.mark.parametrize("count", [0, 1, 2, 7, 100])
def test_the_problems_of_both_halves_come_back_in_order(count: int) -> None:
    """Problems found by the child follow this process's, as if one process checked them all."""
    snippets = list(range(count))
    assert problems_in_two(snippets, _odd, from_snippets=0) == [
        problem for problem in map(_odd, snippets) if problem is not None
    ]


def test_a_failing_child_leaves_the_work_to_this_process() -> None:
    """A check that breaks in the child breaks here too: the second half is checked again here."""

    def broken(number: int) -> Problem | None:
        if number == 9:
            raise RuntimeError("the check itself is broken")
        return _odd(number)

    with pytest.raises(RuntimeError, match="broken"):
        problems_in_two(list(range(10)), broken, from_snippets=0)


def test_a_large_stack_is_checked_in_two_with_every_problem() -> None:
    """A stack past the threshold reports a failing function in each half, at its line."""
    lines = ["heat_template_version: 2018-08-31", "resources:"]
    for number in range(12_000):
        value = "{list_join: [',', [1]]}" if number in (10, 11_000) else f"{{list_join: [',', [r{number}]]}}"
        lines.append(f"  r{number}: {{type: OS::Heat::Value, properties: {{value: {value}}}}}")
    text = "\n".join(lines) + "\n"
    with pytest.raises(TemplateError) as raised:
        load_stack(MemorySource({"t.yaml": text}), "t.yaml", limits=Limits(max_template_bytes=len(text)))
    assert [
        (problem.line, "Items to join must be" in problem.message) for problem in raised.value.problems
    ] == [
        (13, True),
        (11_003, True),
    ]
