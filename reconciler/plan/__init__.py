"""Plan layer: the pure diff between a stack's desired definition and its recorded resources.

May import templates only: no state, no providers, no I/O, no clock. Same input, same output.
`plan_resource` decides one resource (the engine calls it the moment a resource's requirements are
ready); `plan_stack` decides a whole stack ahead of time (what the daemon renders into plan notes);
`deletion_waves` orders what left the template for pruning, in reverse dependency order.
"""

from reconciler.plan.actions import Action, ResourcePlan, StackPlan
from reconciler.plan.deletion_order import deletion_waves, recorded_references
from reconciler.plan.nested_plans import NestedRecords
from reconciler.plan.recorded import RecordedResource
from reconciler.plan.resource_diff import UpdateRules, changed_properties, plan_resource
from reconciler.plan.stack_plan import plan_stack

__all__ = [
    "Action",
    "NestedRecords",
    "RecordedResource",
    "ResourcePlan",
    "StackPlan",
    "UpdateRules",
    "changed_properties",
    "deletion_waves",
    "plan_resource",
    "plan_stack",
    "recorded_references",
]
