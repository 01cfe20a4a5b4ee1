"""Options several commands take alike, declared once so their names and help stay the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

DEFAULT_TIMEOUT = 3600.0


def timeout_option() -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--timeout SECONDS`: how long a converging command waits before it gives up."""
    return click.option(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        show_default=True,
        help="Give up after this many seconds.",
    )


def optional_repo_option(purpose: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """`--repo DIR`, not required: `purpose` says what the command takes from it."""
    return click.option(
        "--repo", "repo", type=click.Path(exists=True, file_okay=False, path_type=Path), help=purpose
    )
