"""The provider boundary: the simulated cloud's errors become Retryable, Permanent or NotFound,
by the same HTTP statuses the OpenStack provider maps (404 gone; 429 after Retry-After; 409,
5xx and timeouts transient, a 409 flagged as a conflict; 400, 403 and quota excesses permanent,
with the cloud's message).
"""

from __future__ import annotations

from types import TracebackType

from providers.interface import NotFound, Permanent, ProviderError, Retryable
from providers.simulated.errors import CloudError, OverQuota

NOT_FOUND = 404
RATE_LIMITED = 429
CONFLICT = 409
FIRST_SERVER_ERROR = 500


def provider_error(error: CloudError) -> ProviderError:
    """The interface error that carries the policy for `error`."""
    if isinstance(error, OverQuota):
        return Permanent(error.message)
    if error.status == NOT_FOUND:
        return NotFound(error.message)
    if error.status == RATE_LIMITED:
        return Retryable(error.message, after=error.retry_after)
    if error.status == CONFLICT:
        return Retryable(error.message, conflict=True)
    if error.status >= FIRST_SERVER_ERROR:
        return Retryable(error.message)
    return Permanent(error.message)


class _ProviderErrors:
    """A `with` block raising every cloud error inside as the interface error with its policy.

    A class rather than a generator-based context manager: it wraps every provider call, and a
    generator made, started and finished per call was a few microseconds of each.
    """

    __slots__ = ()

    def __enter__(self) -> None:
        return None

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, traceback: TracebackType | None
    ) -> None:
        if isinstance(error, CloudError):
            raise provider_error(error) from error


_PROVIDER_ERRORS = _ProviderErrors()


def provider_errors() -> _ProviderErrors:
    """Raise every cloud error inside the `with` block as the interface error with its policy."""
    return _PROVIDER_ERRORS
