"""The newest schema revision the packaged migrations declare, read from their files, not by Alembic.

Importing Alembic costs a command a sixth of a second of CPU, more than a database already at the
head needs: a start, a plan or an apply only has to compare one row with one name. Every migration
names its `revision` and `down_revision` on lines of their own, so the head is the revision no other
one revises. Standard library only: `reconciler outputs` runs this file without importing the
state package (and SQLAlchemy with it).
"""

from __future__ import annotations

import re
from pathlib import Path

VERSIONS = Path(__file__).resolve().with_name("migrations") / "versions"
REVISION_LINE = re.compile(r'^(revision|down_revision)\b[^=]*=\s*"([^"]+)"', re.MULTILINE)


class MigrationsUnreadable(ValueError):
    """The packaged migrations do not name exactly one head."""


def packaged_head(versions: Path = VERSIONS) -> str:
    """The revision among the migration files in `versions` that no other one revises."""
    revisions: set[str] = set()
    revised: set[str | None] = set()
    for script in versions.glob("*.py"):
        found = dict(REVISION_LINE.findall(script.read_text(encoding="utf-8")))
        if "revision" in found:
            revisions.add(found["revision"])
            revised.add(found.get("down_revision"))
    heads = sorted(revisions - revised)
    if len(heads) != 1:
        raise MigrationsUnreadable(f"the packaged migrations have {len(heads)} heads, expected one")
    return heads[0]
