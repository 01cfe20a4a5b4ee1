"""`reconciler outputs`: print a stack's outputs from the state store."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("outputs", "Print a stack's outputs from the state store.")
