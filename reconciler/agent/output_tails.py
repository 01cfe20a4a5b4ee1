"""A script's output of any size or encoding, cut to a bounded tail of valid UTF-8.

Output is written to a file while the script runs (never held whole in memory), and only its last
`TAIL_BYTES` are read back: a signal carries at most that much per stream, far under the agent
API's 1 MiB body limit, whatever the script printed. The tail is decoded with invalid sequences
replaced, starting at a character boundary, with NUL (which PostgreSQL's text refuses) replaced too.
"""

from __future__ import annotations

import os
from pathlib import Path

TAIL_BYTES = 16_384
REPLACEMENT = "\ufffd"


def text_tail(raw: bytes, limit: int = TAIL_BYTES) -> str:
    """The last `limit` bytes of `raw` as valid UTF-8 text without NUL characters."""
    tail = raw[-limit:]
    if len(raw) > limit:
        # a cut inside a multi-byte character leaves up to three continuation bytes in front
        skipped = 0
        while skipped < 3 and skipped < len(tail) and 0x80 <= tail[skipped] <= 0xBF:
            skipped += 1
        tail = tail[skipped:]
    return tail.decode("utf-8", errors="replace").replace("\x00", REPLACEMENT)


def file_tail(path: Path, limit: int = TAIL_BYTES) -> str:
    """`text_tail` of a file's last `limit` bytes (and the few before, to find a boundary)."""
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            start = max(0, size - limit - 3)
            handle.seek(start)
            raw = handle.read()
    except OSError:
        return ""
    return text_tail(raw, limit)
