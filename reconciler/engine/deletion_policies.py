"""Heat's deletion policies: what removing a resource from the cloud's management does.

`Delete` deletes it; `Retain` leaves it in the cloud and stops managing it; `Snapshot` keeps a copy
(a Cinder backup of a volume) and then deletes it. The policy applies however the resource goes:
pruned from the template, replaced, or with its whole stack. It is the one the resource was last
converged with, kept on its record, as Heat keeps the definition a resource was made from.
"""

from __future__ import annotations

from typing import Any

DELETE, RETAIN, SNAPSHOT = "Delete", "Retain", "Snapshot"
POLICIES = (DELETE, RETAIN, SNAPSHOT)


class InvalidDeletionPolicy(ValueError):
    """A deletion policy that is none of Heat's three (after functions were resolved)."""


def deletion_policy_named(value: Any) -> str:
    """The policy `value` names; newer templates may write it in lower case, as Heat accepts."""
    if isinstance(value, str):
        for policy in POLICIES:
            if value == policy or value == policy.lower():
                return policy
    raise InvalidDeletionPolicy(f'Invalid deletion policy "{value}"')
