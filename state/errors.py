"""Errors of the state store, each carrying what the caller should do about it."""

from __future__ import annotations


class StateError(Exception):
    """Base of every error raised by `state/`."""


class StaleLease(StateError):
    """A write on behalf of a shard whose epoch is no longer current: nothing was written.

    Policy: permanent for this holder. The caller stops acting on the shard; whoever holds the new
    epoch carries on.
    """

    def __init__(self, shard: int, epoch: int) -> None:
        super().__init__(f"lease on shard {shard} at epoch {epoch} is no longer current; nothing was written")
        self.shard = shard
        self.epoch = epoch


class DatabaseUnavailable(StateError):
    """The database could not be reached within the retry budget; nothing was committed.

    Policy: retryable. Pause work and try again later; leases not renewed meanwhile stop being acted on.
    """

    def __init__(self, operation: str, attempts: int, cause: str) -> None:
        super().__init__(f"database unavailable during {operation} after {attempts} attempt(s): {cause}")
        self.operation = operation
        self.attempts = attempts


class CommitOutcomeUnknown(StateError):
    """The connection dropped while committing: the transaction may or may not have been applied.

    Policy: retryable, but not blindly. Fenced and conditional writes are safe to repeat; the caller
    re-reads what it needs before acting on the outcome.
    """

    def __init__(self, operation: str, cause: str) -> None:
        super().__init__(f"connection lost while committing {operation}; outcome unknown: {cause}")
        self.operation = operation


class InvalidDatabaseUrl(StateError):
    """The `--database` value is not a usable SQLAlchemy URL. Policy: permanent (fix the setting)."""
