"""System tools some tests need (gpg, systemd-analyze, ...): skipped on a developer's machine
without them, a failure under CI (`CI=true`), so what the suite must cover never passes unrun."""

from __future__ import annotations

import os
import shutil

import pytest


def required_tool(name: str) -> str:
    """The path of `name`; skips the test when it is missing, or fails it under CI."""
    found = shutil.which(name)
    if found is not None:
        return found
    reason = f"{name} is not installed"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: install it on the runner)", pytrace=False)
    pytest.skip(reason)
