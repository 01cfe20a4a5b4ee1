"""The keys that seal hidden values, read from a key file: one Fernet key per line, newest first.

Empty lines and lines starting with "#" are ignored. `key_file_keys(path, create=True)` makes the
file on first use (mode 0600, one fresh key) for the embedded single-host case; a file another
process is making at the same moment is waited for, never made twice.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from state.errors import StateError
from state.sealing import new_key


class KeyFileError(StateError):
    """The key file cannot be read or holds no valid key. Policy: permanent (fix the file)."""


def read_keys(path: Path) -> list[bytes]:
    try:
        lines = path.read_text(encoding="ascii").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise KeyFileError(f"{path}: the key file cannot be read ({error.__class__.__name__})") from None
    keys = [line.strip().encode("ascii") for line in lines if line.strip() and not line.startswith("#")]
    if not keys:
        raise KeyFileError(f"{path}: the key file holds no key")
    return keys


def key_file_keys(path: Path, *, create: bool) -> list[bytes]:
    """The keys in `path`; with `create`, a new file holding one fresh key when there is none."""
    if create and not path.exists():
        _create(path)
    return read_keys(path)


def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        os.fchmod(descriptor, 0o600)
        os.write(descriptor, new_key() + b"\n")
        os.fsync(descriptor)
        os.close(descriptor)
        with contextlib.suppress(FileExistsError):  # another process made it first: theirs is kept
            os.link(temporary, path)  # atomic, and never replaces a file
    finally:
        os.unlink(temporary)
