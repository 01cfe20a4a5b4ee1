"""The error policy at the provider boundary, one row per kind of answer a cloud gives.

Each row is a real `requests.Response` as keystoneauth hands it to the provider (status, headers
and the error body each service writes); the provider must raise the interface error named in the
row, with the cloud's own message, chained from openstacksdk's exception.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
import requests
from openstack import exceptions as sdk_errors

from providers.interface import NotFound, Permanent, ProviderError, Retryable
from providers.openstack.errors import raise_for_response, redacted, secret_values


def response(status: int, body: Any, headers: dict[str, str] | None = None) -> requests.Response:
    answer = requests.Response()
    answer.status_code = status
    answer._content = json.dumps(body).encode()
    answer.headers.update({"Content-Type": "application/json", **(headers or {})})
    answer.url = "http://127.0.0.1/compute/v2.1/servers"
    return answer


@dataclass(frozen=True)
class Case:
    status: int
    body: Any
    error: type[ProviderError]
    words: str  # the cloud's words the message must carry
    headers: dict[str, str] = field(default_factory=dict)
    after: float | None = None
    conflict: bool = False  # something in the way (409), not a failing cloud


def nova(kind: str, status: int, message: str) -> dict[str, Any]:
    return {kind: {"code": status, "message": message}}


QUOTA_10 = "Quota exceeded for instances: Requested 1, but already used 10 of 10 instances"
DATES = {"Retry-After": "Sat, 21 Nov 2026 12:00:05 GMT", "Date": "Sat, 21 Nov 2026 12:00:00 GMT"}
CASES = [
    Case(404, nova("itemNotFound", 404, "Instance x could not be found."), NotFound, "could not be found"),
    Case(500, nova("computeFault", 500, "Unexpected API Error."), Retryable, "Unexpected API Error"),
    Case(
        503, {"message": "The service is unavailable."}, Retryable, "unavailable", {"Retry-After": "3"}, 3.0
    ),
    Case(
        429,
        nova("overLimit", 429, "Rate limit exceeded."),
        Retryable,
        "Rate limit",
        {"Retry-After": "7"},
        7.0,
    ),
    Case(429, {"message": "slow down"}, Retryable, "slow down", DATES, 5.0),
    Case(
        409,
        {"NeutronError": {"type": "InUse", "message": "Port p is still in use."}},
        Retryable,
        "in use",
        conflict=True,
    ),
    Case(
        409,
        {"NeutronError": {"type": "OverQuota", "message": "Quota exceeded for resources: ['port']."}},
        Permanent,
        "Quota exceeded for resources",
    ),
    Case(403, nova("forbidden", 403, QUOTA_10), Permanent, "already used 10 of 10"),
    Case(
        413,
        nova("overLimit", 413, "VolumeSizeExceedsAvailableQuota: Requested volume exceeds allowed quota."),
        Permanent,
        "VolumeSizeExceedsAvailableQuota",
    ),
    Case(
        413,
        nova("overLimit", 413, "This request was rate-limited."),
        Retryable,
        "rate-limited",
        {"Retry-After": "2"},
        2.0,
    ),
    Case(400, nova("badRequest", 400, "Invalid key_name provided."), Permanent, "Invalid key_name"),
    Case(
        403, nova("forbidden", 403, "Policy doesn't allow servers:create."), Permanent, "Policy doesn't allow"
    ),
]


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case.status}-{case.error.__name__}-{case.words}")
def test_each_answer_becomes_the_error_carrying_its_policy(case: Case) -> None:
    with pytest.raises(ProviderError) as raised:
        raise_for_response(response(case.status, case.body, case.headers), "POST compute /servers")
    assert type(raised.value) is case.error
    assert case.words in str(raised.value)
    assert f"HTTP {case.status}" in str(raised.value)
    assert isinstance(raised.value.__cause__, sdk_errors.HttpException)
    if isinstance(raised.value, Retryable):
        assert raised.value.after == case.after
        assert raised.value.conflict is case.conflict


def test_a_successful_answer_raises_nothing() -> None:
    raise_for_response(response(200, {"server": {"id": "x"}}), "GET compute /servers/x")


def test_a_secret_the_cloud_echoes_back_is_redacted_and_the_policy_kept() -> None:
    body = {"server": {"name": "web", "adminPass": "s3cret-pass", "user_data": "I2Nsb3VkLWNvbmZpZw=="}}
    echo = nova("badRequest", 400, "Invalid input for field/attribute adminPass. Value: s3cret-pass.")
    with pytest.raises(ProviderError) as raised:
        raise_for_response(response(400, echo), "POST compute /servers")

    safe = redacted(raised.value, secret_values(body))

    assert type(safe) is Permanent
    assert "s3cret-pass" not in str(safe) and "<redacted>" in str(safe)
    assert "Invalid input for field/attribute adminPass" in str(safe)
    untouched = Retryable("HTTP 503: try later", after=2.0)
    assert redacted(untouched, secret_values(body)) is untouched
