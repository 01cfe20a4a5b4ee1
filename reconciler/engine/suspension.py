"""Heat's stack suspend and resume, declared in git: a stack's `state` kept on its servers.

With `state: suspended` every resource whose provider can suspend it (servers) is suspended, in
the stack and in every nested stack (they inherit the policy); `active` resumes them. The state is
followed wherever the engine sees a server live: when it becomes READY after a create, an update
or a replacement, and at every observation, so a server resumed by hand while its stack is declared
suspended is suspended again (and one suspended by hand while its stack is active is resumed),
as any other drift is put back to what git says. A suspend or resume still on its way, or refused
for now (Nova's 409), is asked again at the next observation, brought forward to when the cloud said.

Resources on a server that are suspended too (software deployments, whose SUSPEND config runs on
the server: `providers.heat.deployment_suspension`) are suspended first, the server once they are.

A stack whose state changed is PROGRESSING until an observation has seen every server in the
declared state; a suspended stack at rest is SUSPENDED (Heat's SUSPEND_COMPLETE), and its outputs
are final as a CONVERGED stack's.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from providers.interface import LiveResource, LiveStatus, Suspending
from reconciler.engine.call_specs import CallSpec
from reconciler.engine.outcomes import Applied, CallOutcome, Failed, RetryLater, Vanished
from reconciler.engine.resource_state import ResourceState

if TYPE_CHECKING:
    from reconciler.engine.stack_run import StackRun

SUSPENSION = "suspension"  # the first item of a suspend or resume call's key
RETRY_SOON = 5.0  # seconds before asking again when the cloud said nothing of when


class Suspension:
    """Suspends or resumes one stack's servers as its policy declares, and says when that is done."""

    def __init__(self, run: StackRun) -> None:
        self._run = run
        self._unconfirmed = False  # the declared state changed and no observation has seen it held since
        self._seen_suspended: dict[str, bool] = {}  # resource -> whether last seen suspended
        self._held_back: set[str] = set()  # servers whose suspension waits for what runs on them

    def declared(self, was_suspended: bool) -> None:
        """A new generation: if the declared state changed, observe at once to follow it."""
        if self._run.policy.suspended != was_suspended:
            self._unconfirmed = True
            self._run.observation.observe_by(0.0)

    def observed(self) -> None:
        """An observation of every observable resource came back: what it saw was followed."""
        self._unconfirmed = False

    def busy(self) -> bool:
        """A suspend or resume is out, or the change of state is not seen held yet."""
        return (
            self._unconfirmed
            or bool(self._held_back)
            or any(_is_suspension(key) for key in self._run.flights)
        )

    def can_suspend(self, type_name: str) -> bool:
        provider: object = self._run.providers.provider_for(type_name)
        return isinstance(provider, Suspending) and provider.can_suspend(type_name)

    def follow(self, state: ResourceState, live: LiveResource, now: float) -> None:
        """`state` was seen `live`: suspend or resume it when it differs from the declared state."""
        run = self._run
        wanted = run.policy.suspended
        key = (SUSPENSION, state.name)
        self._seen_suspended[state.name] = live.suspended
        if (
            wanted
            and live.status is LiveStatus.READY
            and not live.suspended
            and self._dependents_running(state.name)
        ):
            self._held_back.add(state.name)
            run.observation.observe_by(now + RETRY_SOON)  # its software deployments first: they run on it
            return
        self._held_back.discard(state.name)
        if (
            live.suspended == wanted
            or live.status is not LiveStatus.READY
            or state.physical_id is None
            or key in run.flights
            or run.removing
            or run.options.is_external(state.name)  # taken as it is: never changed, suspended neither
            or not self.can_suspend(state.type)
        ):
            return
        provider = run.providers.provider_for(state.type)
        assert provider is not None
        action = "suspend" if wanted else "resume"
        spec = CallSpec(action, run.policy.cloud, state.type, (state.physical_id,))

        def done(outcome: CallOutcome, at: float) -> None:
            if isinstance(outcome, Applied) and outcome.live.suspended == run.policy.suspended:
                run.summary.failure_over(state.name)
            elif isinstance(outcome, RetryLater | Applied):
                after = outcome.after if isinstance(outcome, RetryLater) and outcome.after else RETRY_SOON
                run.observation.observe_by(at + after)
            elif isinstance(outcome, Failed):
                reason = f"could not {action} {state.type} {state.physical_id}: {outcome.message}"
                run.summary.fail(state.name, run.without_secrets(reason))
            elif isinstance(outcome, Vanished):
                run.observation.observe_by(at)  # missing: the observation's drift repair makes it again

        abandon = partial(done, RetryLater(f"{action} call timed out"))
        run.flights.dispatch(key, spec, provider, done, abandon, now=now)

    def _dependents_running(self, name: str) -> bool:
        """Whether a resource on `name` that is suspended too (a software deployment to a server,
        whose SUSPEND config runs on it) is not seen suspended yet."""
        records = self._run.resources.records
        for dependent in self._run.resources.dependents_of(name):
            state = records.get(dependent)
            if state is not None and self.can_suspend(state.type) and not self._seen_suspended.get(dependent):
                return True
        return False


def _is_suspension(key: object) -> bool:
    return isinstance(key, tuple) and bool(key) and key[0] == SUSPENSION
