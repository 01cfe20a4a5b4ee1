"""Signals kept, told from other threads and taken by the engine's pass; remembered a while for a
resource that starts waiting only after its signal came."""

from __future__ import annotations

from reconciler.engine.signals_kept import REMEMBERED, SignalsKept


def test_nothing_told_takes_nothing() -> None:
    assert SignalsKept().take(0.0) is None


def test_what_was_told_is_taken_once() -> None:
    signals = SignalsKept()
    signals.tell(["a", "b"])
    signals.tell(["c"])

    assert signals.take(1.0) == ({"a", "b", "c"}, False)
    assert signals.take(2.0) is None


def test_a_signal_for_anyone_is_taken_as_such() -> None:
    signals = SignalsKept()
    signals.tell(None)
    assert signals.take(1.0) == (set(), True)


def test_a_signal_taken_is_remembered_for_a_while_and_then_forgotten() -> None:
    signals = SignalsKept()
    signals.tell(["early"])
    signals.take(100.0)
    assert signals.lately("early") and not signals.lately("other")

    signals.tell(["later"])
    signals.take(100.0 + REMEMBERED / 2)
    assert signals.lately("early")

    signals.tell(["last"])
    signals.take(100.0 + REMEMBERED + 1)
    assert not signals.lately("early")
    assert signals.lately("later") and signals.lately("last")


def test_a_signal_told_again_is_remembered_from_its_latest_taking() -> None:
    signals = SignalsKept()
    signals.tell(["again"])
    signals.take(0.0)
    signals.tell(["again"])
    signals.take(REMEMBERED - 1)
    signals.tell(["other"])
    signals.take(REMEMBERED + 1)
    assert signals.lately("again")
