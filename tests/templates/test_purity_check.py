"""The templates layer's purity is checked by ruff with the tests: the check really refuses a module
that forks, waits on signals or reads the clock, and leaves the other layers alone."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUFF = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")

IMPURE = {
    "a fork": "import os\n\n\ndef run() -> int:\n    return os.fork()\n",
    "the collector switched off": "import gc\n\n\ndef run() -> None:\n    gc.disable()\n",
    "a signal handler": "import signal\n\n\ndef run() -> None:\n    signal.alarm(1)\n",
    "a thread": "import threading\n\n\ndef run() -> None:\n    threading.Thread(target=print).start()\n",
    "the clock": "from datetime import datetime\n\n\ndef run() -> datetime:\n    return datetime.now()\n",
}


def _ruff(module: str, source: str) -> subprocess.CompletedProcess[str]:
    assert RUFF is not None
    return subprocess.run(
        [RUFF, "check", "--no-fix", "--output-format", "concise", "--stdin-filename", module, "-"],
        input=source,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed")
@pytest.mark.parametrize("label", IMPURE)
def test_an_impure_templates_module_is_refused(label: str) -> None:
    """Written inside reconciler/templates, each is reported as a banned API."""
    checked = _ruff("reconciler/templates/impure.py", IMPURE[label])
    assert checked.returncode == 1
    assert "TID251" in checked.stdout


@pytest.mark.skipif(RUFF is None, reason="ruff is not installed")
def test_the_same_code_elsewhere_is_not_the_templates_rule() -> None:
    """The daemon may fork and handle signals: the ban is the templates layer's own."""
    checked = _ruff("reconciler/daemon/impure.py", IMPURE["a fork"])
    assert "TID251" not in checked.stdout
