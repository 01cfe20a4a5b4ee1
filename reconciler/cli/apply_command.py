"""`reconciler apply`: converge the repository's HEAD once and exit."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("apply", "Converge the repository's HEAD once and exit.")
