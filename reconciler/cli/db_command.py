"""`reconciler db`: manage the state database."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("db", "Manage the state database.")
