"""Hidden parameter values sealed at rest: a JSON value that holds one is stored encrypted.

A stack's hidden parameters (`hidden: true`, or named in an environment's `encrypted_param_names`)
reach the database inside resolved properties (resource records), nested stacks' inputs (stack
generations) and queued cloud calls (work items). Before such a value is written, its JSON text is
searched for the texts the stack declared hidden (`Store.hide`, for the stack and every stack
nested under it); a value that holds one is replaced by `{"$sealed": <Fernet token>}` of its whole
JSON text, and opened again when the store hands it back. Values without a hidden text are stored
as they are: sealing every row would cost a Fernet encryption per record write.

Fernet (AES-128-CBC with HMAC-SHA256, from the `cryptography` package) under `MultiFernet`:
values are sealed with the first key and opened with any, so a key is rotated by putting the new
one first and keeping the old ones until every row was written again (see docs/secrets.md).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Sequence
from typing import Any

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

from state.errors import StateError

SEALED = "$sealed"


class UnreadableSeal(StateError):
    """A sealed value none of this worker's keys opens. Policy: permanent (configure the key the
    value was sealed with: every daemon sharing a database needs the same keys)."""


class Sealer:
    """Seals the JSON values that hold a hidden text of their stack, and opens sealed values."""

    def __init__(self, keys: Sequence[bytes]) -> None:
        if not keys:
            raise ValueError("at least one key is needed")
        self._fernet = MultiFernet([Fernet(key) for key in keys])
        self._hidden: dict[str, tuple[str, ...]] = {}
        self._lock = threading.Lock()

    def hide(self, stack: str, texts: Iterable[str]) -> None:
        """The texts of `stack`'s hidden parameter values (replacing what was known), as they are and
        as JSON writes them (escaped), for `stack` and every stack nested under it."""
        forms = {form for text in texts if text for form in (text, json.dumps(text)[1:-1])}
        with self._lock:
            self._hidden[stack] = tuple(sorted(forms))

    def holds_hidden(self, stack: str, json_text: str) -> bool:
        hidden = self._hidden.get(stack.split("/", 1)[0])
        return bool(hidden) and any(text in json_text for text in hidden or ())

    def sealed_text(self, stack: str, json_text: str) -> str:
        """`json_text`, or the JSON text of its seal when it holds a hidden text of `stack`."""
        if not self.holds_hidden(stack, json_text):
            return json_text
        return json.dumps({SEALED: self.seal(json_text)}, separators=(",", ":"))

    def sealed_value(self, stack: str, value: Any) -> Any:
        """`value`, or its seal when its JSON holds a hidden text of `stack`."""
        text = json.dumps(value, separators=(",", ":"))
        if not self.holds_hidden(stack, text):
            return value
        return {SEALED: self.seal(text)}

    def seal(self, json_text: str) -> str:
        return self._fernet.encrypt(json_text.encode()).decode("ascii")

    def opened(self, value: Any) -> Any:
        """A sealed value opened (anything else as it is)."""
        if not is_sealed(value):
            return value
        try:
            return json.loads(self._fernet.decrypt(value[SEALED].encode("ascii")))
        except InvalidToken:
            raise UnreadableSeal("a sealed value cannot be opened with the configured keys") from None


def is_sealed(value: Any) -> bool:
    return isinstance(value, dict) and len(value) == 1 and isinstance(value.get(SEALED), str)


def new_key() -> bytes:
    return Fernet.generate_key()
