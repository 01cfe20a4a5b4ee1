"""A stack's identity as its templates see it: `OS::stack_name` and the `OS::stack_id` made from it.

A stack's name is its identity (renaming is deleting one stack and creating another), so its id is
a name-based UUID: the same on every worker and after every restart, with nothing stored. A nested
stack is named `<parent>/<resource>`, the name the engine keeps it under.
"""

from __future__ import annotations

import uuid

STACK_IDS = uuid.UUID("6f1f3d1c-2b52-5d0e-9a57-0c5b1e0f6a11")  # the namespace stack ids are made in


def stack_id(stack: str) -> str:
    """The `OS::stack_id` of the stack named `stack`."""
    return str(uuid.uuid5(STACK_IDS, stack))


def nested_stack_name(parent: str, resource: str) -> str:
    """The name of the nested stack that resource `resource` of stack `parent` holds."""
    return f"{parent}/{resource}"


def stack_pseudo_parameters(stack: str) -> dict[str, str]:
    """`OS::stack_name` and `OS::stack_id` of the stack named `stack`."""
    return {"OS::stack_name": stack, "OS::stack_id": stack_id(stack)}
