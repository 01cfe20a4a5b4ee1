"""Writers of one process take turns: one at a time, and never waiting past their patience."""

from __future__ import annotations

import threading
import time

from state.write_turns import WriteTurns


def test_writers_of_both_kinds_write_one_at_a_time() -> None:
    turns = WriteTurns()
    inside: list[int] = []
    most_inside = 0
    guard = threading.Lock()

    def write(urgent: bool) -> None:
        nonlocal most_inside
        for _ in range(50):
            with turns.turn(urgent=urgent, patience=30.0):
                with guard:
                    inside.append(1)
                    most_inside = max(most_inside, len(inside))
                with guard:
                    inside.pop()

    writers = [threading.Thread(target=write, args=(n % 3 == 0,)) for n in range(8)]
    for writer in writers:
        writer.start()
    for writer in writers:
        writer.join(60)
    assert not any(writer.is_alive() for writer in writers)
    assert most_inside == 1


def test_a_writer_out_of_patience_writes_without_its_turn() -> None:
    turns = WriteTurns()
    ran = threading.Event()
    with turns.turn(urgent=False, patience=1.0):
        waiting = threading.Thread(target=lambda: _write(turns, ran))
        waiting.start()
        waiting.join(10)
        assert ran.is_set()


def _write(turns: WriteTurns, ran: threading.Event) -> None:
    with turns.turn(urgent=True, patience=0.05):
        ran.set()


def test_a_freed_turn_goes_to_the_writer_waiting_not_to_one_come_since() -> None:
    turns = WriteTurns()
    order: list[str] = []
    with turns.turn(urgent=False, patience=30.0):
        waiting = threading.Thread(target=lambda: _record(turns, order, "waiting", urgent=False))
        waiting.start()
        _until_waiting(turns, 1)
    # the writer that just had the turn asks again at once, before the one woken has run
    _record(turns, order, "back", urgent=False)
    waiting.join(10)
    assert order == ["waiting", "back"]


def test_turns_alternate_between_urgent_and_other_writers_in_the_order_they_asked() -> None:
    turns = WriteTurns()
    order: list[str] = []
    writers = []
    with turns.turn(urgent=True, patience=30.0):
        for name, urgent in (("other 1", False), ("urgent 1", True), ("other 2", False), ("urgent 2", True)):
            writer = threading.Thread(target=_record, args=(turns, order, name), kwargs={"urgent": urgent})
            writer.start()
            writers.append(writer)
            _until_waiting(turns, len(writers))
    for writer in writers:
        writer.join(10)
    # after the urgent turn held above, another writer's; then urgent and other in turn
    assert order == ["other 1", "urgent 1", "other 2", "urgent 2"]


def _record(turns: WriteTurns, order: list[str], name: str, *, urgent: bool) -> None:
    with turns.turn(urgent=urgent, patience=30.0):
        order.append(name)


def _until_waiting(turns: WriteTurns, count: int, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while turns.waiting() != count:
        assert time.monotonic() < end, "timed out"
        time.sleep(0.001)
