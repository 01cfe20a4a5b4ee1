"""`reconciler sim`: serve the simulated OpenStack cloud."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("sim", "Serve the simulated OpenStack cloud.")
