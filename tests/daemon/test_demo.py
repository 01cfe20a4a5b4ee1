"""`make demo` end to end: two commits converge under the real daemon and both notes are shown."""

from __future__ import annotations

from pathlib import Path

import pytest

from reconciler.cli.demo import run_demo


def test_the_demo_converges_two_commits_and_shows_both_notes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_demo(tmp_path) == 0
    shown = capsys.readouterr().out
    assert "first commit" in shown and "converged; its note says:" in shown
    assert "git log --notes=reconciler shows both notes:" in shown
    assert shown.count('"status":"CONVERGED"') == 3  # network and app on the first, app on the second
    assert "the daemon stopped with exit status 0" in shown
    assert "the simulated cloud now holds: servers 3, volumes 3" in shown
