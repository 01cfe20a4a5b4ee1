"""A stack's identity as its templates see it: `OS::stack_name` and the `OS::stack_id` made from it.

A stack's name is its identity (renaming is deleting one stack and creating another), so its id is
a name-based UUID: the same on every worker and after every restart, with nothing stored. A nested
stack is named `<parent>/<resource>`, the name the engine keeps it under.
"""

from __future__ import annotations

import hashlib

STACK_IDS = bytes.fromhex("6f1f3d1c2b525d0e9a570c5b1e0f6a11")  # the namespace stack ids are made in


def stack_id(stack: str) -> str:
    """The `OS::stack_id` of the stack named `stack`: RFC 4122's name-based (SHA-1, version 5) UUID,
    made with hashlib since templates hold no source of randomness."""
    digest = bytearray(hashlib.sha1(STACK_IDS + stack.encode()).digest()[:16])
    digest[6] = (digest[6] & 0x0F) | 0x50
    digest[8] = (digest[8] & 0x3F) | 0x80
    text = digest.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


def nested_stack_name(parent: str, resource: str) -> str:
    """The name of the nested stack that resource `resource` of stack `parent` holds."""
    return f"{parent}/{resource}"


def stack_pseudo_parameters(stack: str) -> dict[str, str]:
    """`OS::stack_name` and `OS::stack_id` of the stack named `stack`."""
    return {"OS::stack_name": stack, "OS::stack_id": stack_id(stack)}
