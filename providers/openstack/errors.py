"""Where the SDK's failures become the provider interface's errors, and nowhere else.

Every HTTP call of this package goes through `raise_for_response` (for an answer the cloud gave)
and `translated_errors` (for the answer it never gave: refused connections, timeouts). The policy:

| cloud answer | error | why |
|---|---|---|
| 404 | NotFound | the physical resource is gone |
| 429, 413 without "quota" | Retryable(after=Retry-After) | rate limited: the cloud says when |
| 409 without "quota" | Retryable(conflict=True) | something is in the way: back off, move it |
| 5xx, timeout, refused | Retryable | transient: back off and try again |
| 400, 403, 409/413 naming a quota | Permanent(the cloud's message) | retrying cannot fix it |

Each error is raised `from` the SDK's (or keystoneauth's) exception, so the cause is kept for
debugging while nothing of the SDK leaks past this package. Messages carry the action, the HTTP
status and the cloud's own words; never request bodies (they can hold passwords and user data),
and a secret of the request that the cloud echoes back in its message is redacted (`redacted`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextlib import contextmanager
from email.utils import parsedate_to_datetime
from typing import Any

import requests
from keystoneauth1 import exceptions as keystone_errors
from openstack import exceptions as sdk_errors

from providers.interface import NotFound, Permanent, ProviderError, Retryable

QUOTA_WORDS = ("quota", "overlimit", "over limit", "limitexceeded")
# Request body keys whose values are secrets; a cloud may echo them in a validation message.
SECRET_KEYS = frozenset({"adminPass", "user_data", "password", "private_key", "admin_pass", "payload"})
REDACTED = "<redacted>"


def raise_for_response(response: requests.Response, action: str) -> None:
    """Raise the interface error matching a failed response; return quietly on success."""
    try:
        sdk_errors.raise_from_response(response)
    except sdk_errors.HttpException as error:
        raise error_for(action, response, error) from error


def error_for(action: str, response: requests.Response, cause: sdk_errors.HttpException) -> ProviderError:
    """The interface error for one failed HTTP response (the SDK has parsed its message)."""
    status = response.status_code
    message = f"{action}: HTTP {status}: {body_description(response) or cloud_message(cause)}"
    if status == 404:
        return NotFound(message)
    if names_a_quota(message):
        return Permanent(message)
    if status in (413, 429):
        return Retryable(message, after=retry_after(response))
    if status == 409 or isinstance(cause, sdk_errors.ConflictException):
        return Retryable(message, after=retry_after(response), conflict=True)
    if status >= 500:
        return Retryable(message, after=retry_after(response))
    return Permanent(message)


def cloud_message(error: sdk_errors.HttpException) -> str:
    """The cloud's own words for a failure, as the SDK extracted them from the error body."""
    details = (error.details or "").strip()
    return details or "no message"


def body_description(response: requests.Response) -> str | None:
    """The service's own words where the SDK does not look for them: Barbican's and Monasca's
    `description`, Blazar's `error_message`, the `detail` of Zun's and Magnum's first entry of
    `errors`."""
    try:
        body = response.json()
    except ValueError:
        return None
    if not isinstance(body, dict):
        return None
    errors = body.get("errors")
    first = errors[0] if isinstance(errors, list) and errors and isinstance(errors[0], dict) else {}
    description = body.get("description") or body.get("error_message") or first.get("detail")
    return description.strip() or None if isinstance(description, str) else None


def names_a_quota(message: str) -> bool:
    lowered = message.lower()
    return any(word in lowered for word in QUOTA_WORDS)


def retry_after(response: requests.Response) -> float | None:
    """Seconds to wait from a Retry-After header (delta-seconds or an HTTP date), if one is given."""
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    date_header = response.headers.get("Date")
    if not date_header:
        return None
    try:
        now = parsedate_to_datetime(date_header)
    except (TypeError, ValueError):
        return None
    return max(0.0, (moment - now).total_seconds())


@contextmanager
def translated_errors(action: str) -> Iterator[None]:
    """Turn connection failures and timeouts (no answer from the cloud) into Retryable."""
    try:
        yield
    except keystone_errors.ConnectionError as error:
        raise Retryable(f"{action}: {error.__class__.__name__}: the cloud did not answer") from error
    except keystone_errors.RequestTimeout as error:
        raise Retryable(f"{action}: the request timed out") from error
    except keystone_errors.EndpointNotFound as error:
        raise Permanent(f"{action}: the cloud's catalog has no endpoint for this service") from error
    except keystone_errors.Unauthorized as error:
        raise Permanent(f"{action}: the cloud refused the credentials") from error
    except sdk_errors.SDKException as error:
        raise Permanent(f"{action}: {error.__class__.__name__}: {error}") from error


@contextmanager
def sdk_call_errors(action: str) -> Iterator[None]:
    """For a call made through one of the SDK's proxy methods: its HTTP errors mapped as any answer's."""
    with translated_errors(action):
        try:
            yield
        except sdk_errors.HttpException as error:
            if error.response is None:
                raise
            raise error_for(action, error.response, error) from error


def secret_values(body: Any) -> set[str]:
    """Every string the body holds under a secret key, at any depth."""
    found: set[str] = set()
    if isinstance(body, Mapping):
        for key, value in body.items():
            if key in SECRET_KEYS and isinstance(value, str) and value:
                found.add(value)
            else:
                found |= secret_values(value)
    elif isinstance(body, list):
        for item in body:
            found |= secret_values(item)
    return found


def redacted(error: ProviderError, secrets: Collection[str]) -> ProviderError:
    """The same error with every secret replaced in its message (the error itself if none shows)."""
    message = str(error)
    for secret in sorted(secrets, key=len, reverse=True):
        message = message.replace(secret, REDACTED)
    if message == str(error):
        return error
    if isinstance(error, Retryable):
        return Retryable(message, after=error.after, conflict=error.conflict)
    return type(error)(message)
