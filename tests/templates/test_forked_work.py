"""Work in a forked child: its result comes back, and a child that fails or hangs never blocks the parent."""

from __future__ import annotations

import os
import time

from reconciler.templates.forked_work import ForkedWork


def _reaped(child: ForkedWork) -> bool:
    try:
        os.waitpid(child._child, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


def test_the_childs_bytes_come_back() -> None:
    child = ForkedWork.start(lambda: b"x" * 3_000_000)  # more than one pipe buffer
    assert child is not None
    assert child.result() == b"x" * 3_000_000
    assert _reaped(child)


def test_a_child_that_fails_gives_no_result() -> None:
    def fail() -> bytes:
        raise RuntimeError("boom")

    child = ForkedWork.start(fail)
    assert child is not None
    assert child.result() is None
    assert _reaped(child)


def test_a_child_that_hangs_is_killed_and_the_parent_goes_on() -> None:
    def hang() -> bytes:
        time.sleep(3_600)
        return b"never"

    child = ForkedWork.start(hang)
    assert child is not None
    assert child.result(patience=0.3) is None
    assert _reaped(child)
