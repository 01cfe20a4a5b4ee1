"""`reconciler run`: run the GitOps daemon."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("run", "Run the GitOps daemon.")
