"""Engine layer: coordinator, executor and observer that converge stacks to their desired generation.

May import plan, templates, state and the provider interface; must never import the OpenStack SDK.

The face: `Engine(store, providers, clock, worker_id, leases=..., sleeper=...)` with
`submit(stack, DesiredGeneration(commit, spec, definition))`, `step() -> Progress`,
`report(stack) -> StackReport` and `converge(stacks, deadline)`.
"""

from reconciler.engine.backoff import Backoff
from reconciler.engine.desired import DesiredGeneration, Policy
from reconciler.engine.engine import Engine
from reconciler.engine.held_shards import HeldShards, SoleWorkerLeases
from reconciler.engine.progress import Progress
from reconciler.engine.provider_set import CloudProviders, ProviderSet
from reconciler.engine.report import ActionCounts, Failure, StackReport
from reconciler.engine.settings import EngineSettings
from reconciler.engine.stack_status import StackStatus

__all__ = [
    "ActionCounts",
    "Backoff",
    "CloudProviders",
    "DesiredGeneration",
    "Engine",
    "EngineSettings",
    "Failure",
    "HeldShards",
    "Policy",
    "Progress",
    "ProviderSet",
    "SoleWorkerLeases",
    "StackReport",
    "StackStatus",
]
