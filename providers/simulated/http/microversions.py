"""Microversion negotiation for Nova and Cinder: read the version a client asks for, echo it back."""

from __future__ import annotations

from providers.simulated.errors import CloudError
from providers.simulated.http.exchange import ApiRequest, ApiResponse


class NotAcceptable(CloudError):
    status = 406
    code = "notAcceptable"


def as_tuple(version: str) -> tuple[int, int]:
    major, _, minor = version.partition(".")
    return int(major), int(minor or 0)


def requested(
    request: ApiRequest, service: str, legacy_header: str | None, minimum: str, maximum: str
) -> str:
    """The microversion asked for (`OpenStack-API-Version: compute 2.79`), the minimum by default."""
    asked = None
    header = request.headers.get("openstack-api-version", "")
    for part in header.split(","):
        words = part.split()
        if len(words) == 2 and words[0] == service:
            asked = words[1]
    if asked is None and legacy_header:
        asked = request.headers.get(legacy_header)
    if not asked:
        return minimum
    if asked == "latest":
        return maximum
    try:
        in_range = as_tuple(minimum) <= as_tuple(asked) <= as_tuple(maximum)
    except ValueError:
        in_range = False
    if not in_range:
        raise NotAcceptable(
            f"Version {asked} is not supported by the API. Minimum is {minimum} and maximum is {maximum}."
        )
    return asked


def stamped(response: ApiResponse, service: str, legacy_header: str | None, version: str) -> ApiResponse:
    response.headers["OpenStack-API-Version"] = f"{service} {version}"
    vary = ["OpenStack-API-Version"]
    if legacy_header:
        response.headers[legacy_header] = version
        vary.append(legacy_header)
    response.headers["Vary"] = ", ".join(vary)
    return response
