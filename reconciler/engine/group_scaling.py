"""Scaling groups moved by their policies' signals, within the bounds git declares.

Git owns a group's bounds (`min_size`, `max_size`, `desired_capacity` at the commit); the running
system owns its size between them. A policy's signal (`signalled`) computes the new size as Heat
does (`scaling_capacity`), the engine writes it to the database under the shard's lease, and from
then on the group's nested stack is built with that size (`sized`): after a restart, a takeover or
a drift repair alike, never reset to `desired_capacity` while the bounds stay. A commit that
changes the bounds wins, as Heat's update of a group does: the group takes `desired_capacity`
when one is declared, else keeps its size clamped to the new bounds.

A group's record keeps the properties git declared; only its nested stack sees the runtime size.
A signal refused (cooldown, no change in capacity, an alarm state other than alarm) changes
nothing and sets no cooldown, as Heat's `NoActionRequired`. As Heat's group does once its create
or update completes, a group a commit made or changed starts its own `cooldown` when its nested
stack is at rest (`rebuilt`, `completed`, `cooldowns_due`): no policy moves it before that ends.

A policy names its group as Heat's `resource_by_refid` finds it: by the group's reference (what
`get_resource` gives, its id) or by its resource name, in the policy's own stack.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from reconciler.engine.resource_state import RecordStatus
from reconciler.engine.scaling_capacity import clamp, new_capacity
from state.scaling import GroupSize

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

SCALING_POLICY = "OS::Heat::ScalingPolicy"
AWS_SCALING_POLICY = "AWS::AutoScaling::ScalingPolicy"
POLICY_TYPES = frozenset({SCALING_POLICY, AWS_SCALING_POLICY})
AUTOSCALING = "autoscaling"
AUTOSCALING_GROUP = "OS::Heat::AutoScalingGroup"
RECENT_SCALINGS = 10

# Reads a stack's groups' runtime sizes from the store (the engine hands it in).
GroupSizeReader = Callable[[str], Mapping[str, GroupSize]]


@dataclass(frozen=True)
class Scaled:
    """A signal moves `group` from `before` to `after` members; `size` is what to store."""

    group: str
    policy: str
    before: int
    after: int
    size: GroupSize

    def __str__(self) -> str:
        return f"scaled {self.group} {self.before} -> {self.after} by {self.policy}"


@dataclass(frozen=True)
class NotScaled:
    """The signal changes nothing (Heat's NoActionRequired), and why."""

    reason: str


@dataclass(frozen=True)
class NotYet:
    """The signal waits: the policy or its group is not settled yet."""

    reason: str


ScalingOutcome = Scaled | NotScaled | NotYet


@dataclass(frozen=True)
class _Policy:
    group_ref: Any
    adjustment: float
    adjustment_type: str
    cooldown: float | None
    min_adjustment_step: int | None


def _policy_of(type_name: str, properties: Mapping[str, Any]) -> _Policy:
    if type_name == AWS_SCALING_POLICY:
        names = (
            "AutoScalingGroupName",
            "ScalingAdjustment",
            "AdjustmentType",
            "Cooldown",
            "MinAdjustmentStep",
        )
    else:
        names = (
            "auto_scaling_group_id",
            "scaling_adjustment",
            "adjustment_type",
            "cooldown",
            "min_adjustment_step",
        )
    group, adjustment, kind, cooldown, step = (properties.get(name) for name in names)
    return _Policy(
        group,
        float(adjustment or 0),
        str(kind),
        None if cooldown is None else float(cooldown),
        None if step is None else int(step),
    )


def bounds_of(properties: Mapping[str, Any]) -> dict[str, Any]:
    """The bounds git declares for a group: what a commit must change to win over its policies."""
    desired = properties.get("desired_capacity")
    return {
        "min_size": int(properties.get("min_size") or 0),
        "max_size": int(properties.get("max_size") or 0),
        "desired_capacity": None if desired is None else int(desired),
    }


def declared_size(bounds: Mapping[str, Any]) -> int:
    desired = bounds["desired_capacity"]
    return int(bounds["min_size"] if desired is None else desired)


class ScalingLog:
    """The scalings of one root stack's tree, newest last, each with the commit it happened at."""

    def __init__(self) -> None:
        self._entries: deque[tuple[str | None, str]] = deque(maxlen=RECENT_SCALINGS)

    def add(self, commit: str | None, text: str) -> None:
        self._entries.append((commit, text))

    def at(self, commit: str | None) -> tuple[str, ...]:
        """The scalings at `commit` (a new commit starts the list again)."""
        return tuple(text for made_at, text in self._entries if made_at == commit)


class GroupScaling:
    """One stack's groups' runtime sizes, and what its policies' signals do to them."""

    def __init__(self, run: StackRun, reader: GroupSizeReader | None) -> None:
        self._run = run
        self._reader = reader
        self._sizes: dict[str, GroupSize] | None = None
        self.forgotten: set[str] = set()  # groups whose stored size a commit overrode: to delete
        self._rebuilding: set[str] = set()  # groups a commit made or changed, not at rest yet
        self._cooling: set[str] = set()  # groups at rest since: their cooldown starts at the next write
        self.has_policies = False  # whether the stack holds a scaling policy (its signals are read)
        self.log = ScalingLog()  # the engine shares its root's among a tree of nested stacks

    def moving(self) -> bool:
        """Whether the stack holds a scaling policy (signals may come) or a group's size is changing."""
        return self.has_policies or bool(self.forgotten or self._rebuilding or self._cooling)

    def noticed(self, type_name: str) -> None:
        """A resource of `type_name` is recorded or decided in the stack."""
        if type_name in POLICY_TYPES:
            self.has_policies = True

    def gone(self, name: str, type_name: str) -> None:
        """The group left the stack: its runtime size goes with it (made again, it starts from git's)."""
        if type_name != AUTOSCALING_GROUP or name in self._run.resources.records:
            return
        if self._sizes is not None:
            self._sizes.pop(name, None)
        self.forgotten.add(name)

    def _loaded(self) -> dict[str, GroupSize]:
        """The stored sizes, read once, on the first group decided (stacks without groups read none)."""
        if self._sizes is None:
            self._sizes = dict(self._reader(self._run.name)) if self._reader is not None else {}
        return self._sizes

    def sized(self, name: str, desired: Mapping[str, Any]) -> dict[str, Any]:
        """The group's properties its nested stack is built from: its runtime size, if it has one."""
        stored = self._loaded().get(name)
        if stored is None:
            return dict(desired)
        bounds = bounds_of(desired)
        if dict(stored.bounds) != bounds:
            stored = self._bounds_changed(name, stored, bounds)
            if stored is None:
                return dict(desired)
        return {**desired, "desired_capacity": stored.size}

    def _bounds_changed(self, name: str, stored: GroupSize, bounds: dict[str, Any]) -> GroupSize | None:
        """A commit changed the bounds: Heat's update takes desired_capacity, else clamps the size."""
        sizes = self._loaded()
        if bounds["desired_capacity"] is not None:
            del sizes[name]
            self.forgotten.add(name)
            return None
        kept = GroupSize(
            clamp(stored.size, bounds["min_size"], bounds["max_size"]), bounds, stored.cooldown_end
        )
        sizes[name] = kept
        return kept

    def current_size(self, name: str, properties: Mapping[str, Any]) -> int:
        sized = self.sized(name, properties)
        desired = sized.get("desired_capacity")
        return declared_size(bounds_of(properties)) if desired is None else int(desired)

    def signalled(self, policy_name: str, now: float) -> ScalingOutcome:
        """What a signal of `policy_name` does now (nothing is changed until `scaled` is called)."""
        run = self._run
        policy_state = run.resources.records.get(policy_name)
        if policy_state is None or policy_state.type not in POLICY_TYPES:
            return NotScaled(f"{policy_name} is not a scaling policy of this stack any more")
        if policy_state.status is not RecordStatus.READY:
            return NotYet(f"{policy_name} is not ready")
        policy = _policy_of(policy_state.type, policy_state.properties)
        group = next(
            (
                state
                for state in run.resources.records.values()
                if state.physical_id is not None and policy.group_ref in (state.physical_id, state.name)
            ),
            None,
        )
        definition = run.definition
        resource = None if group is None or definition is None else definition.resources.get(group.name)
        if group is None or resource is None or resource.nested_kind != AUTOSCALING:
            return NotScaled(f"{policy_name}: no scaling group {policy.group_ref} in this stack")
        if group.status is not RecordStatus.READY or not run.resources.is_settled(group.name):
            return NotYet(f"{group.name} is not settled")
        return self._adjusted(group.name, policy_name, group.properties, policy, now)

    def _adjusted(
        self, group: str, policy_name: str, properties: Mapping[str, Any], policy: _Policy, now: float
    ) -> ScalingOutcome:
        bounds = bounds_of(properties)
        current = self.current_size(group, properties)
        stored = self._loaded().get(group)
        cooldown_end = stored.cooldown_end if stored is not None else 0.0
        if now < cooldown_end:
            return NotScaled(f"{group} is in its cooldown for {cooldown_end - now:.0f} s more")
        try:
            after = new_capacity(
                current,
                policy.adjustment,
                policy.adjustment_type,
                minimum=bounds["min_size"],
                maximum=bounds["max_size"],
                min_adjustment_step=policy.min_adjustment_step,
            )
        except ValueError as error:
            return NotScaled(f"{policy_name}: {error}")
        if after == current:
            return NotScaled(f"{group}: no change in capacity ({current})")
        cooldown = policy.cooldown if policy.cooldown is not None else properties.get("cooldown")
        end = max(cooldown_end, now + max(0.0, float(cooldown or 0)))
        return Scaled(group, policy_name, current, after, GroupSize(after, bounds, end))

    def rebuilt(self, name: str) -> None:
        """A commit made or changed the group: its cooldown starts once its nested stack is at rest."""
        self._rebuilding.add(name)

    def completed(self, name: str) -> None:
        """The group's nested stack is at rest."""
        if name in self._rebuilding:
            self._rebuilding.discard(name)
            self._cooling.add(name)

    def cooldowns_due(self, now: float) -> dict[str, GroupSize]:
        """The sizes to store for groups whose create or update completed: their own `cooldown`
        from `now` (a cooldown already running longer is kept)."""
        due: dict[str, GroupSize] = {}
        for name in sorted(self._cooling):
            state = self._run.resources.records.get(name)
            cooldown = 0.0 if state is None else float(state.properties.get("cooldown") or 0)
            if state is None or cooldown <= 0:
                continue
            stored = self._loaded().get(name)
            end = max(stored.cooldown_end if stored is not None else 0.0, now + cooldown)
            size = self.current_size(name, state.properties)
            due[name] = GroupSize(size, bounds_of(state.properties), end)
        self._cooling.clear()
        return due

    def cooled(self, name: str, size: GroupSize) -> None:
        """The group's cooldown is stored."""
        self._loaded()[name] = size
        self.forgotten.discard(name)

    def scaled(self, scaling: Scaled) -> None:
        """The new size is stored: the group's nested stack is built with it from now on."""
        run = self._run
        self._loaded()[scaling.group] = scaling.size
        self.forgotten.discard(scaling.group)
        self.log.add(run.commit, str(scaling))
        run.resources.unsettle(scaling.group)
        run.summary.status_changed()
