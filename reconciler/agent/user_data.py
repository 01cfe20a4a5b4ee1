"""What a server's user data tells its agent: where to poll, and the scripts to run at boot.

Heat's SOFTWARE_CONFIG user data is a multipart message: the user's scripts (`x-shellscript`
parts) and a `cfn-init-data` part whose `os-collect-config` section names the metadata URL
(`request.metadata_url`, as POLL_TEMP_URL gives it). A user data that is one script (a `#!` line
first, RAW, e.g. a config inlined for a server in an isolated network) is that script.
"""

from __future__ import annotations

import email
import json
from dataclasses import dataclass
from email.message import Message


@dataclass(frozen=True)
class BootData:
    """A server's user data as its agent reads it."""

    metadata_url: str | None
    scripts: tuple[str, ...]
    software_config: bool  # Heat's SOFTWARE_CONFIG format (a cfn-init-data part)


def read_user_data(user_data: str | None) -> BootData:
    if not user_data:
        return BootData(None, (), software_config=False)
    parsed = email.message_from_string(user_data)
    if not parsed.is_multipart():
        return BootData(None, (user_data,) if user_data.startswith("#!") else (), software_config=False)
    metadata_url, software_config = None, False
    scripts: list[str] = []
    for part in parsed.get_payload():
        if not isinstance(part, Message):
            continue
        payload = _text(part)
        if part.get_filename() == "cfn-init-data":
            software_config = True
            metadata_url = _metadata_url(payload)
        elif part.get_content_subtype() == "x-shellscript" or payload.startswith("#!"):
            scripts.append(payload)
    return BootData(metadata_url, tuple(scripts), software_config)


def _text(part: Message) -> str:
    raw = part.get_payload(decode=True)
    if isinstance(raw, bytes):
        return raw.decode(part.get_content_charset() or "utf-8", errors="replace")
    return str(part.get_payload())


def _metadata_url(payload: str) -> str | None:
    try:
        metadata = json.loads(payload)
        url = metadata["os-collect-config"]["request"]["metadata_url"]
    except (ValueError, KeyError, TypeError):
        return None
    return url if isinstance(url, str) else None
