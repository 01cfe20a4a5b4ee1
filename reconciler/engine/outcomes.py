"""What one provider call came to: named outcomes the coordinator acts on, never exceptions."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from providers.interface import LiveResource


@dataclass(frozen=True, slots=True)
class Applied:
    """The create or update call returned this resource (possibly still IN_PROGRESS)."""

    live: LiveResource
    adopted: bool = False  # found by its idempotency marker rather than created


@dataclass(frozen=True)
class Deleted:
    """The resource is gone (deleted now, or already); `snapshot`: the copy made before, if any."""

    snapshot: str | None = None


@dataclass(frozen=True)
class Vanished:
    """The resource to update no longer exists."""


@dataclass(frozen=True)
class RetryLater:
    """A transient failure: try again after the backoff (or `after` seconds, if the cloud said).

    `conflict`: the cloud refused because something is in the way (a name or address in use).
    """

    message: str
    after: float | None = None
    conflict: bool = False


@dataclass(frozen=True)
class Failed:
    """A permanent failure, with the cloud's own message."""

    message: str


@dataclass(frozen=True)
class Observed:
    """Live state of the physical ids that exist; the ids asked for but absent are gone."""

    live: Mapping[str, LiveResource]


CallOutcome = Applied | Deleted | Vanished | RetryLater | Failed
ObserveOutcome = Observed | RetryLater | Failed
