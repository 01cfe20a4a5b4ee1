"""`reconciler shards`: show who holds which shard and the live workers."""

from __future__ import annotations

from reconciler.cli.unbuilt import unbuilt_command

command = unbuilt_command("shards", "Show who holds which shard and the live workers.")
