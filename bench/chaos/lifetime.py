"""Processes the suite starts end with it, even when it is killed without a chance to clean up."""

from __future__ import annotations

import shutil
import signal
from collections.abc import Sequence
from types import FrameType


def bound_to_us(command: Sequence[str]) -> list[str]:
    """`command` SIGKILLed when the suite dies (util-linux `setpriv --pdeathsig`, where present)."""
    setpriv = shutil.which("setpriv")
    return [setpriv, "--pdeathsig", "KILL", "--", *command] if setpriv else list(command)


def exit_on_sigterm() -> None:
    """SIGTERM raises SystemExit, so every `finally` runs: daemons stopped, cluster removed."""

    def leave(number: int, _: FrameType | None) -> None:
        raise SystemExit(128 + number)

    signal.signal(signal.SIGTERM, leave)
