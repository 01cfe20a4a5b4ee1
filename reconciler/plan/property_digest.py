"""The digest of a resource's resolved properties: what apply records beside them, and what a plan
compares first.

Planning a one-line change of a large stack decides every resource, but only the few whose digest
differs from the recorded one need their applied properties decoded and compared name by name.
The digest is of the values as JSON keeps them (keys sorted, compact), so two values with equal
digests are equal once stored; values JSON cannot hold (an unknown marker) have none.
"""

from __future__ import annotations

import _json
import hashlib
import json
from collections.abc import Mapping
from typing import Any

_DEFAULT = json.JSONEncoder().default
# The C encoder behind `json.dumps(sort_keys=True, separators=(",", ":"))`, made once: `dumps`
# makes a new one per call, a large share of encoding a small value.
_ENCODE = _json.make_encoder(None, _DEFAULT, _json.encode_basestring_ascii, None, ":", ",", True, False, True)


def properties_digest(properties: Mapping[str, Any]) -> str | None:
    """The digest of `properties`, or None when a value in it has no JSON form."""
    if type(properties) is not dict:
        properties = dict(properties)
    try:
        text = "".join(_ENCODE(properties, 0))
    except (TypeError, ValueError, RecursionError):
        return None
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()
