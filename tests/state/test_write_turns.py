"""Writers of one process take turns: one at a time, and never waiting past their patience."""

from __future__ import annotations

import threading

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
