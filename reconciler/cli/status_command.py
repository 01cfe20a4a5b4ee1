"""`reconciler status`: render the convergence or plan note of a commit."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("status", "Render the convergence or plan note of a commit.")
