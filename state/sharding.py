"""Stacks map to a fixed number of virtual shards by a stable hash of the stack name.

Python's `hash()` is salted per process, so two daemons would disagree; a digest of the UTF-8 name
gives every host, every process and every release the same answer.
"""

from __future__ import annotations

import hashlib

DEFAULT_SHARD_COUNT = 64


def shard_for(stack_name: str, shard_count: int = DEFAULT_SHARD_COUNT) -> int:
    """The shard (0 .. shard_count-1) a stack belongs to, the same on every host."""
    if shard_count < 1:
        raise ValueError(f"shard_count must be at least 1, got {shard_count}")
    digest = hashlib.blake2b(stack_name.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") % shard_count
