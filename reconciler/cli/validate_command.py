"""`reconciler validate`: validate a Heat template and its environments."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("validate", "Validate a Heat template and its environments.")
