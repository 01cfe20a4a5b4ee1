"""A stack's nested stacks: template resources, groups, chains and OS::Heat::Stack, as seen by the parent.

A nested stack is a stack of its own, converged by the engine beside its parent (or by the worker
holding its shard). The parent hands each child its desired definition, with the `RunSpec` it
inherits, waits for the child to settle at that generation, and then reads the child's outputs
(or a group's members) as the values of the resource that owns it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from providers.interface import ProviderError
from reconciler.engine.batching import batch_policy, check_update_policy
from reconciler.engine.deletion_policies import RETAIN
from reconciler.engine.desired import Policy
from reconciler.engine.pass_result import ChildRequest, RemoveChild, SubmitChild
from reconciler.engine.record_rows import plain_json
from reconciler.engine.remote_stacks import CONTEXT, REMOTE_STACK, context_refusal, nested_cloud
from reconciler.engine.report import SETTLED_STATUSES
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.engine.run_spec import RunSpec
from reconciler.engine.stack_status import AT_REST, StackStatus
from reconciler.templates.errors import Unresolved
from reconciler.templates.removal_policies import with_removed_names
from reconciler.templates.stack_identity import nested_stack_name, stack_pseudo_parameters

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

GROUP_KINDS = frozenset({"group", "autoscaling", "instancegroup"})
# The property holding a group's member definition: a change of it renews every member.
MEMBERS_KEYS = {"group": "resource_def", "autoscaling": "resource", "instancegroup": "LaunchConfiguration"}
ASKED = -1  # the generation of a child asked for, until the engine answers with its number


class NestedChildren:
    """The nested stacks the parent waits on: resource name -> the child's generation.

    Making and removing children are requests the engine answers after the pass (`submitted`,
    `removed`); what the children report is read through the run's `ChildReports`.
    """

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self._waiting: dict[str, int] = {}
        self._requests: list[ChildRequest] = []

    def __contains__(self, name: str) -> bool:
        return name in self._waiting

    def __len__(self) -> int:
        return len(self._waiting)

    def moving(self, awaiting_approval: Mapping[str, str]) -> bool:
        """Whether a child waited on can still move (one waiting for an approval cannot)."""
        return any(name not in awaiting_approval for name in self._waiting)

    def waited_on(self) -> list[str]:
        """The stack names of the children waited on."""
        records = self._run.resources.records
        return [
            state.physical_id
            for state in (records.get(name) for name in self._waiting)
            if state is not None and state.physical_id is not None
        ]

    def usable(self, name: str, resource: Any) -> bool:
        """A group's update_policy can pace it: False (and the group waits, or fails) otherwise."""
        if resource.nested_kind not in GROUP_KINDS:
            return True
        try:
            check_update_policy(self._resolved_update_policy(resource))
        except Unresolved:
            return False  # considered again when what the policy reads settles
        except Exception as error:
            self._run.actions.fail(name, f"invalid update_policy of {name}: {error}")
            return False
        return True

    def _context_refusal(
        self, name: str, type_name: str, desired: Mapping[str, Any], state: ResourceState | None
    ) -> str | None:
        """Why OS::Heat::Stack `name` cannot be built where its resolved `context` asks (None: it can),
        nor moved there from where its nested stack was built."""
        context = desired.get(CONTEXT) if type_name == REMOTE_STACK else None
        recorded = None if state is None or state.type != REMOTE_STACK else state.properties.get(CONTEXT)
        if not context and not recorded:
            return None
        run = self._run
        providers = run.providers
        try:
            region, regions = providers.region_name(), providers.region_names()
        except ProviderError as error:
            return f"{REMOTE_STACK} {name}: the regions of cloud {run.policy.cloud!r} cannot be read: {error}"
        refusal = context_refusal(name, context, run.policy.cloud, region, regions)
        if refusal is not None or state is None:
            return refusal
        built, wanted = (nested_cloud(c, run.policy.cloud, region) for c in (recorded, context))
        if built != wanted:
            return (
                f"{REMOTE_STACK} {name}: its nested stack is built on {built!r}; moving it to {wanted!r} "
                f"is not served (give the resource another name to build it anew there)"
            )
        return None

    def _nested_cloud(self, type_name: str, desired: Mapping[str, Any]) -> str:
        """Where the nested stack of a resource is built: the parent's cloud, or the region of it its
        OS::Heat::Stack context names."""
        run = self._run
        if type_name != REMOTE_STACK or not desired.get(CONTEXT):
            return run.policy.cloud
        return nested_cloud(desired.get(CONTEXT), run.policy.cloud, run.providers.region_name())

    def _resolved_update_policy(self, resource: Any) -> Any:
        """The group's update_policy with its functions resolved (checked by `usable`)."""
        policy = getattr(resource, "update_policy", None)
        definition = self._run.definition
        if policy is None or definition is None:
            return None
        return definition.resolve(policy, self._run.values)

    def converge(
        self, name: str, *, type_name: str, desired: dict[str, Any], state: ResourceState | None, now: float
    ) -> None:
        """Hand the nested stack of `name` its definition for `desired`, and wait for it to settle."""
        run = self._run
        definition = run.definition
        assert definition is not None
        child = nested_stack_name(run.name, name)
        if definition.resources[name].nested_kind == "group":
            recorded = state.properties if state is not None else None
            desired = with_removed_names(desired, recorded, run.values.member_references(child))
        resource = definition.resources[name]
        # a scaling group's nested stack has its runtime size; its record keeps what git declared
        sized = run.scaling.sized(name, desired) if resource.nested_kind == "autoscaling" else desired
        nested = definition.nested(name, sized, pseudo_parameters=stack_pseudo_parameters(child))
        if nested is None:
            run.actions.fail(name, f"{type_name} has no nested definition")
            return
        refusal = self._context_refusal(name, type_name, desired, state)
        if refusal is not None:
            run.actions.fail(name, refusal)  # before the child exists: nothing is built where not asked
            return
        resources = run.resources
        summary = run.summary
        adopt = run.spec.adopt
        adopted = adopt.get(name) if adopt is not None and state is None else None
        previous = None if state is None else state.properties
        if state is None:
            state = ResourceState(name, type_name, RecordStatus.CREATE_IN_PROGRESS, run.generation)
            resources.records[name] = state
            summary.count("created" if adopted is None else "adopted")
            resources.acting_on(name)
            if resource.nested_kind == "autoscaling":
                run.scaling.rebuilt(name)
        elif state.properties != desired or state.type != type_name:
            summary.count("updated")
            resources.acting_on(name)
            if resource.nested_kind == "autoscaling":
                run.scaling.rebuilt(name)
        state.type = type_name
        state.physical_id = child
        state.properties = desired
        state.generation = run.generation
        run.writes.mark(state)
        policy = run.policy
        inherited = Policy(
            self._nested_cloud(type_name, desired),
            policy.self_heal,
            policy.prune,
            policy.observe_interval,
            require_approval=policy.require_approval,
            state=policy.state,
        )
        is_group = resource.nested_kind in GROUP_KINDS
        batch = None
        if is_group:
            creating = state.status is not RecordStatus.READY
            members_key = MEMBERS_KEYS[str(resource.nested_kind)]
            renewing = previous is None or previous.get(members_key) != desired.get(members_key)
            batch = batch_policy(self._resolved_update_policy(resource), creating=creating, renewing=renewing)
        spec = RunSpec(
            run.spec.lineage.child(name, sized),
            inherited,
            group_member=run.in_group,
            is_group=is_group,
            batch=batch,
            adopt=None if adopted is None else adopted.nested,
        )
        self._requests.append(SubmitChild(name, child, run.commit or "", nested, spec))
        self._waiting[name] = ASKED

    def take_requests(self) -> tuple[ChildRequest, ...]:
        requests, self._requests = tuple(self._requests), []
        return requests

    def submitted(self, name: str, generation: int) -> None:
        """The engine made the child of `name` at `generation`: wait for it (settled already, maybe)."""
        if self._waiting.get(name) == ASKED:
            self._waiting[name] = generation
            self._check(name)

    def check_all(self) -> None:
        for name in list(self._waiting):
            self._check(name)

    def any_settled(self) -> bool:
        """Whether a child waited on settled (or is gone): another pass of the parent moves."""
        records = self._run.resources.records
        nested = self._run.context.children
        for name, generation in self._waiting.items():
            state = records.get(name)
            if state is None or state.physical_id is None:
                return True
            standing = nested.nested_standing(state.physical_id)
            if standing is not None and standing[0] == generation and standing[1] in SETTLED_STATUSES:
                return True
        return False

    def _check(self, name: str) -> None:
        run = self._run
        state = run.resources.records.get(name)
        generation = self._waiting.get(name)
        if state is None or generation is None or state.physical_id is None:
            self._waiting.pop(name, None)
            return
        nested = run.context.children
        standing = nested.nested_standing(state.physical_id)
        if standing is None or standing[0] != generation or standing[1] not in SETTLED_STATUSES:
            return
        report = nested.nested_report(state.physical_id)
        if report is None:
            return
        if report.status is StackStatus.PENDING_APPROVAL:
            if not run.approved:  # else the child, approved with it, moves on at its next pass
                waiting = "; ".join(str(failure) for failure in report.failures)
                run.summary.await_approval(name, f"in its nested stack: {waiting}")
            return
        del self._waiting[name]
        run.writes.mark(state)
        if report.status in AT_REST:
            run.scaling.completed(name)
            state.status = RecordStatus.READY
            state.attributes = plain_json(dict(nested.nested_outputs(state.physical_id)))
            state.last_error = None
            run.finished(state, values_changed=True)
        else:
            failures = report.failures
            reasons = "; ".join(f"{f.resource}: {f.reason}" for f in failures) or report.status.value
            reason = f"nested stack {state.physical_id} {report.status.value}: {reasons}"
            run.actions.fail_state(state, self._short_of_minimum(name, state) + reason)
            next_tries = [failure.next_try for failure in failures if failure.next_try is not None]
            if next_tries and run.summary.failed(name):  # shown with the failure; the child retries it
                run.summary.nested_next_tries[name] = min(next_tries)

    def _short_of_minimum(self, name: str, state: ResourceState) -> str:
        """For a scaling group holding fewer members than its min_size: says so, first."""
        definition = self._run.definition
        resource = definition.resources.get(name) if definition is not None else None
        if resource is None or resource.nested_kind != "autoscaling" or state.physical_id is None:
            return ""
        minimum = int(state.properties.get("min_size") or 0)
        members = self._run.context.children.nested_members(state.physical_id)
        held = sum(1 for member in members.values() if member.get("physical_id") is not None)
        return f"{name} holds {held} of its min_size {minimum}: " if held < minimum else ""

    def changed(self, name: str, *, converged: bool = True) -> None:
        """The nested stack of `name` moved on its own. Converged again (drift repaired): its values
        are read anew. Any move while `name` failed because of it (a retry in the child, the time
        of its next try): `name` is decided again, and takes the child's newest report."""
        run = self._run
        if name in self._waiting or name in run.flights:
            return
        if run.summary.failed(name) and not run.summary.escalated(name):
            run.summary.failure_over(name)
            run.resources.unsettle(name)
            run.summary.status_changed()
        elif converged and run.resources.is_settled(name) and self._values_moved(name):
            run.resources.unsettle(name)

    def _values_moved(self, name: str) -> bool:
        """Whether the child's outputs differ from those `name` holds. The parent is told of every
        convergence, also of the one it already took in the pass the child converged in; deciding
        `name` again for it would submit the child once more for nothing. A group's values are
        its members', not its outputs: always read anew."""
        state = self._run.resources.records.get(name)
        definition = self._run.definition
        resource = definition.resources.get(name) if definition is not None else None
        if (
            state is None
            or state.physical_id is None
            or resource is None
            or resource.nested_kind in GROUP_KINDS
        ):
            return True
        outputs = self._run.context.children.nested_outputs(state.physical_id)
        return bool(plain_json(dict(outputs)) != state.attributes)

    def remove(self, child: str, *, retain: bool = False) -> None:
        """Ask for the child to converge to nothing (`removed` once it holds no resources any more);
        `retain`: everything it holds stays in the cloud.

        A child a newer generation of the parent wants again (a group grown back before its old
        member was gone) is not removed: only the retiring record of it goes.
        """
        live = self._run.resources.records.get(child.rpartition("/")[2])
        if live is not None and live.physical_id == child:
            self.removed(child)
            return
        self._requests.append(RemoveChild(child, retain))

    def removed(self, child: str) -> None:
        """The child holds no resources any more: its record, retiring, is deleted (or retained)."""
        run = self._run
        retirement = run.retirement
        for state in list(retirement):
            if state.physical_id != child:
                continue
            if state.deletion_policy == RETAIN or run.spec.retain_all:
                run.summary.keep(
                    f"{state.name} ({child})",
                    "retained: every resource of its nested stack left in the cloud, no longer managed",
                )
                run.summary.count("retained")
                retirement.forget(state)
            else:
                retirement.forget(state, deleted=True)
            run.scaling.gone(state.name, state.type)
