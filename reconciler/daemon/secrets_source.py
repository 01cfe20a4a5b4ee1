"""Where a shared secret of the daemon comes from: the settings, a file, or a systemd credential.

In order: the value itself (a flag or the settings file), else the file `*_file` names, else the
credential of that name systemd hands the unit (`LoadCredential=NAME:PATH` puts it in
`$CREDENTIALS_DIRECTORY/NAME`), else none. A file's trailing newline is not part of the secret.
Errors name the file, never what it holds.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path


class SecretUnreadable(Exception):
    """The secret's file cannot be read or is empty; the message names the file."""


def read_secret(
    value: str | None, file: str | None, credential: str, environ: Mapping[str, str] = os.environ
) -> bytes | None:
    """The secret as bytes, or None when none is configured."""
    if value:
        return value.encode()
    path: Path | None = Path(file) if file else None
    if path is None and environ.get("CREDENTIALS_DIRECTORY"):
        candidate = Path(environ["CREDENTIALS_DIRECTORY"]) / credential
        path = candidate if candidate.exists() else None
    if path is None:
        return None
    try:
        secret = path.read_bytes().rstrip(b"\r\n")
    except OSError as error:
        raise SecretUnreadable(f"{path}: cannot be read: {error.strerror}") from None
    if not secret:
        raise SecretUnreadable(f"{path}: is empty")
    return secret
