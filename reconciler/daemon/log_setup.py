"""The daemon's logging: a level, and a format for people (text) or for log pipelines (JSON).

Text lines carry their own timestamp, except under systemd (`JOURNAL_STREAM` set), where journald
stamps every line already and the level becomes a syslog priority prefix (`<3>` for an error), so
`journalctl -p warning` filters them. JSON is one object per line: `time`, `level`, `logger`,
`message`, plus the fields a record carries (a stack event's `event`, `stack`, `commit`, ...).
"""

from __future__ import annotations

import json
import logging
import os
import sys
import time
from collections.abc import Mapping
from typing import IO

LEVELS: Mapping[str, int] = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
FORMATS = ("text", "json")
# A line per scheduled pass, per skipped overlapping wake-up or per migration step drowns the journal.
QUIET_LOGGERS = {"apscheduler": logging.ERROR, "alembic": logging.WARNING}
EXTRA_FIELDS = ("event", "stack", "commit", "status", "counts", "reasons", "repaired")
SYSLOG_PRIORITY = {
    logging.DEBUG: 7,
    logging.INFO: 6,
    logging.WARNING: 4,
    logging.ERROR: 3,
    logging.CRITICAL: 2,
}


class JsonFormatter(logging.Formatter):
    """One JSON object per record."""

    def format(self, record: logging.LogRecord) -> str:
        body: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in EXTRA_FIELDS:
            if name in record.__dict__:
                body[name] = record.__dict__[name]
        if record.exc_info:
            body["exception"] = self.formatException(record.exc_info)
        return json.dumps(body, ensure_ascii=False, default=str)


class JournalFormatter(logging.Formatter):
    """Text for journald: a syslog priority prefix instead of a timestamp."""

    def format(self, record: logging.LogRecord) -> str:
        priority = SYSLOG_PRIORITY.get(record.levelno, 6)
        return f"<{priority}>{super().format(record)}"


def configure_logging(
    level: str, log_format: str, stream: IO[str] | None = None, environ: Mapping[str, str] = os.environ
) -> None:
    """Send the root logger's records to `stream` (stderr) at `level` in `log_format`."""
    handler = logging.StreamHandler(stream if stream is not None else sys.stderr)
    if log_format == "json":
        handler.setFormatter(JsonFormatter())
    elif environ.get("JOURNAL_STREAM"):
        handler.setFormatter(JournalFormatter("%(levelname)s %(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(LEVELS[level])
    for chatty, quiet in QUIET_LOGGERS.items():
        logging.getLogger(chatty).setLevel(max(quiet, LEVELS[level]))
