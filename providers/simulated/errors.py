"""The errors the simulated cloud raises, shaped like the HTTP failures a real cloud answers with.

Each carries the HTTP status and the fault name the OpenStack services use, so the HTTP face writes
the error body a client parses and the in-process provider maps it to Retryable / Permanent /
NotFound exactly as the OpenStack provider maps the same status codes.
"""

from __future__ import annotations


class CloudError(Exception):
    """A failed cloud call: HTTP `status`, the service's fault `code` and a message safe to show."""

    status = 500
    code = "computeFault"

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.retry_after = retry_after


class BadRequest(CloudError):
    status = 400
    code = "badRequest"


class Forbidden(CloudError):
    """Not allowed; Nova also answers quota exhaustion this way."""

    status = 403
    code = "forbidden"


class ItemNotFound(CloudError):
    status = 404
    code = "itemNotFound"


class Conflict(CloudError):
    """The resource is in a state that forbids the call (in use, still building)."""

    status = 409
    code = "conflictingRequest"


class OverQuota(CloudError):
    """A quota would be exceeded (Neutron's 409 OverQuota, Cinder's 413, Nova's 403)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status
        self.code = "OverQuota"


class TooManyRequests(CloudError):
    """The cloud's rate limit: try again after `retry_after` seconds."""

    status = 429
    code = "overLimit"


class InternalError(CloudError):
    status = 500
    code = "computeFault"


class ServiceUnavailable(CloudError):
    status = 503
    code = "serviceUnavailable"


class CallTimedOut(CloudError):
    """No answer came back in time; `applied` says whether the cloud acted before it went silent."""

    status = 504
    code = "timeout"

    def __init__(self, message: str, applied: bool) -> None:
        super().__init__(message)
        self.applied = applied
