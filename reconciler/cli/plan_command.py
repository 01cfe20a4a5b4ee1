"""`reconciler plan`: show what a commit would change, without applying it."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("plan", "Show what a commit would change, without applying it.")
