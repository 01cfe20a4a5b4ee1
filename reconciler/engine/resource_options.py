"""What a decision reads of a resource besides its type: properties, deletion policy, external id.

All three may use functions, so they are resolved together against the stack's values when the
resource is decided; none resolvable yet means the resource is decided again once what it reads
settles. The deletion policy is kept on the record (`keep_deletion_policy`), since removal follows
the policy the resource was last converged with.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from reconciler.engine.deletion_policies import InvalidDeletionPolicy, deletion_policy_named
from reconciler.engine.external_resources import InvalidExternalId, external_id_named
from reconciler.engine.record_rows import plain_json
from reconciler.engine.resource_state import ResourceState
from reconciler.templates.errors import Unresolved

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun


class ResourceOptions:
    """Resolves a resource's properties and options against one stack's values."""

    def __init__(self, run: StackRun) -> None:
        self._run = run

    def resolved(self, name: str, resource: Any) -> tuple[dict[str, Any], str, str | None] | None:
        """Its properties, deletion policy and external id now; None when they cannot be resolved
        yet (or ever: the resource then fails with the reason)."""
        run = self._run
        assert run.definition is not None
        try:
            desired = plain_json(run.definition.resolve_properties(name, run.values))
            return desired, self._deletion_policy(resource), self._external_id(resource)
        except Unresolved:
            return None  # considered again when what it reads settles
        except (InvalidDeletionPolicy, InvalidExternalId) as error:
            run.actions.fail(name, str(error))
        except Exception as error:
            run.actions.fail(name, f"invalid properties: {error}")
        return None

    def is_external(self, name: str) -> bool:
        definition = self._run.definition
        resource = definition.resources.get(name) if definition is not None else None
        return resource is not None and resource.external_id is not None

    def keep_deletion_policy(self, state: ResourceState | None, policy: str) -> None:
        """Record the policy removal will follow (a replaced copy keeps the one it was made with)."""
        if state is not None and state.deletion_policy != policy:
            state.deletion_policy = policy
            self._run.writes.mark(state)

    def _external_id(self, resource: Any) -> str | None:
        written = resource.external_id
        if written is None:
            return None
        run = self._run
        assert run.definition is not None
        value = written if type(written) is str else run.definition.resolve(written, run.values)
        return external_id_named(value)

    def _deletion_policy(self, resource: Any) -> str:
        written = resource.deletion_policy
        if type(written) is str:  # almost always: no function to resolve
            return deletion_policy_named(written)
        run = self._run
        assert run.definition is not None
        return deletion_policy_named(run.definition.resolve(written, run.values))
