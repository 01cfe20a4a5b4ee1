"""Provider calls turned into outcomes: the provider's errors become values at this one place.

These functions run on the executor's threads; they touch nothing but the provider they are given.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import Any, cast

from providers.interface import (
    CreatesLater,
    Marker,
    NotFound,
    Permanent,
    Provider,
    ProviderError,
    Retryable,
    Snapshotting,
    Suspending,
)
from reconciler.engine.call_pool import AnsweredLater, answer_later
from reconciler.engine.class_checks import ClassCheck
from reconciler.engine.observation_batches import Answer, observe_together
from reconciler.engine.outcomes import (
    Applied,
    CallOutcome,
    Deleted,
    Failed,
    Observed,
    ObserveOutcome,
    RetryLater,
    Vanished,
)


def _unexpected(error: Exception) -> RetryLater:
    """A provider bug or an unmapped transport error: retried, bounded by the attempt limit."""
    return RetryLater(f"unexpected {error.__class__.__name__}: {error}")


def _retry_later(error: Retryable) -> RetryLater:
    return RetryLater(str(error), error.after, conflict=error.conflict)


def _failure(error: Exception, gone: CallOutcome | None = None) -> CallOutcome:
    """The outcome a provider's error stands for; `gone` is what NotFound means to this call
    (None: a failure with the cloud's message, like Permanent)."""
    if isinstance(error, Retryable):
        return _retry_later(error)
    if isinstance(error, NotFound) and gone is not None:
        return gone
    if isinstance(error, ProviderError):
        return Failed(str(error))
    return _unexpected(error)


def call_create(
    provider: Provider, type_name: str, properties: Mapping[str, Any], marker: Marker, *, adopt_first: bool
) -> CallOutcome:
    """Create, or first adopt what an earlier attempt (or a crashed worker) made with `marker`."""
    try:
        if adopt_first:
            found = provider.find_by_marker(type_name, marker)
            if found is not None:
                return Applied(found, adopted=True)
        later = answer_later()
        if later is None or not _creates_later(provider):
            return Applied(provider.create(type_name, properties, marker))
        # on a pool's thread, a create that would only wait for a batched write gives its thread back
        deferring = cast(CreatesLater, provider)
        live = deferring.create_later(type_name, properties, marker, partial(_created_later, later.answer))
    except Exception as error:
        return _failure(error)
    if live is None:
        raise AnsweredLater
    return Applied(live)


_creates_later = ClassCheck(CreatesLater)


def _created_later(deliver: Callable[[Callable[[], CallOutcome]], None], outcome: Callable[[], Any]) -> None:
    deliver(partial(_applied, outcome))


def _applied(outcome: Callable[[], Any]) -> CallOutcome:
    try:
        return Applied(outcome())
    except Exception as error:
        return _failure(error)


def call_find(provider: Provider, type_name: str, marker: Marker) -> CallOutcome:
    """The resource an unanswered create made with `marker` (Applied), or Deleted when there is none."""
    try:
        found = provider.find_by_marker(type_name, marker)
    except Exception as error:
        return _failure(error)
    return Deleted() if found is None else Applied(found, adopted=True)


def call_update(
    provider: Provider,
    type_name: str,
    physical_id: str,
    properties: Mapping[str, Any],
    changed: frozenset[str],
) -> CallOutcome:
    try:
        return Applied(provider.update(type_name, physical_id, properties, changed))
    except Exception as error:
        return _failure(error, gone=Vanished())


def call_delete(provider: Provider, type_name: str, physical_id: str) -> CallOutcome:
    try:
        provider.delete(type_name, physical_id)
    except Exception as error:
        return _failure(error, gone=Deleted())
    return Deleted()


def call_snapshot_delete(provider: Provider, type_name: str, physical_id: str, marker: Marker) -> CallOutcome:
    """Heat's `Snapshot` policy: a complete copy first (found again by `marker`), then the delete.

    Nothing is deleted unless the copy is complete: a copy still being made is a retry, a failed one
    or a type that cannot be copied is a failure that keeps the resource.
    """
    if not isinstance(provider, Snapshotting):
        return Failed(f'"Snapshot" deletion policy not supported for {type_name}')
    try:
        snapshot = provider.snapshot(type_name, physical_id, marker)
    except Exception as error:
        return _failure(error, gone=Deleted())
    outcome = call_delete(provider, type_name, physical_id)
    return Deleted(snapshot=snapshot) if isinstance(outcome, Deleted) else outcome


def call_take_external(provider: Provider, type_name: str, physical_id: str) -> CallOutcome:
    """An existing resource named by `external_id`, taken as it is (Applied), never created."""
    try:
        found = provider.observe(type_name, [physical_id]).get(physical_id)
    except Exception as error:
        return _failure(error)
    if found is None:
        return Failed(f"{type_name} {physical_id} does not exist: external_id must name an existing resource")
    return Applied(found, adopted=True)


def call_suspension(provider: Provider, type_name: str, physical_id: str, *, suspend: bool) -> CallOutcome:
    """Suspend (or resume) one resource: Applied with it once it is there; gone is Vanished."""
    if not isinstance(provider, Suspending):
        return Failed(f"{type_name} cannot be suspended on this cloud")
    try:
        moved = provider.suspend if suspend else provider.resume
        return Applied(moved(type_name, physical_id))
    except Exception as error:
        return _failure(error, gone=Vanished())


def call_observe(provider: Provider, type_name: str, physical_ids: Collection[str]) -> ObserveOutcome:
    """The live resources of `physical_ids`, from a list call shared with other requests.

    On a call pool's thread, a request that joins a list call another request makes raises
    `AnsweredLater`: the thread goes back to the pool, and the answer is delivered once that call
    is back.
    """
    later = answer_later()
    joined = None if later is None else partial(_answer_later, later.answer)
    try:
        live = observe_together(provider, type_name, physical_ids, joined)
    except Exception as error:
        return _observe_failure(error)
    if live is None:
        raise AnsweredLater
    return Observed(live)


def _answer_later(deliver: Callable[[Callable[[], ObserveOutcome]], None], answer: Answer) -> None:
    deliver(partial(_observed, answer))


def _observed(answer: Answer) -> ObserveOutcome:
    try:
        return Observed(answer())
    except Exception as error:
        return _observe_failure(error)


def _observe_failure(error: Exception) -> ObserveOutcome:
    if isinstance(error, Retryable):
        return _retry_later(error)
    if isinstance(error, Permanent):
        return Failed(str(error))
    return _unexpected(error)
