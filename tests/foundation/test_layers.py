"""The layer contracts of the architecture hold, and breaking one is caught."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("reconciler", "providers", "state", "schemas", "timekeeping")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(tree / ".importlinter"), "--no-cache"],
        cwd=tree,
        env={"PYTHONPATH": str(tree), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=False,
    )


def _copy_tree(destination: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, destination / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / ".importlinter", destination / ".importlinter")
    return destination


def test_contracts_hold_on_the_code_as_it_is(tmp_path: Path) -> None:
    result = _lint_imports(_copy_tree(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr


def test_engine_importing_the_sdk_breaks_a_contract(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    (tree / "reconciler" / "engine" / "shortcut.py").write_text("import openstack\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    assert "BROKEN" in result.stdout
    assert "reconciler.engine.shortcut -> openstack" in result.stdout


def test_state_importing_the_engine_breaks_a_contract(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    (tree / "state" / "shortcut.py").write_text("import reconciler.engine\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    assert "state.shortcut -> reconciler.engine" in result.stdout


def test_the_clock_importing_the_state_breaks_a_contract(tmp_path: Path) -> None:
    tree = _copy_tree(tmp_path)
    (tree / "timekeeping" / "shortcut.py").write_text("import state\n")
    result = _lint_imports(tree)
    assert result.returncode != 0
    assert "timekeeping.shortcut -> state" in result.stdout
