"""Error bodies in each service's own shape, which openstacksdk reads the message from."""

from __future__ import annotations

import math

from providers.simulated.errors import CloudError
from providers.simulated.http.exchange import ApiResponse

NEUTRON_TYPES = {400: "BadRequest", 403: "Forbidden", 404: "NotFound", 409: "Conflict", 429: "OverLimit"}
TITLES = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 409: "Conflict",
          413: "Request Entity Too Large", 422: "Unprocessable Entity", 429: "Too Many Requests",
          500: "Internal Server Error", 503: "Service Unavailable"}  # fmt: skip


def error_response(error: CloudError, service: str) -> ApiResponse:
    status = error.status
    if service == "neutron":
        kind = "OverQuota" if error.code == "OverQuota" else NEUTRON_TYPES.get(status, "NeutronError")
        body: object = {"NeutronError": {"type": kind, "message": error.message, "detail": ""}}
    elif service in ("octavia", "mistral"):
        body = {
            "faultcode": "Client" if status < 500 else "Server",
            "faultstring": error.message,
            "debuginfo": None,
        }
    elif service == "aodh":
        fault = "Client" if status < 500 else "Server"
        body = {"error_message": {"faultcode": fault, "faultstring": error.message, "debuginfo": None}}
    elif service == "swift":
        title = TITLES.get(status, "Error")
        response = ApiResponse(status, f"<html><h1>{title}</h1><p>{error.message}</p></html>")
        response.headers["Content-Type"] = "text/html; charset=UTF-8"
        return with_retry_after(response, error)
    elif service in ("zaqar", "monasca"):
        body = {"title": TITLES.get(status, "Error"), "description": error.message}
    elif service == "blazar":
        body = {"error_code": status, "error_message": error.message, "error_name": error.code}
    elif service in ("zun", "magnum"):
        code = ("client" if status < 500 else "server") if service == "magnum" else ""
        entry = {"request_id": "", "code": code, "status": status, "title": TITLES.get(status, "Error"),
                 "detail": error.message, "links": []}  # fmt: skip
        body = {"errors": [entry]}
    elif service == "barbican":
        body = {"code": status, "title": TITLES.get(status, "Error"), "description": error.message}
    elif service == "designate":
        body = {"code": status, "type": error.code, "message": error.message}
    elif service in ("keystone", "admin"):
        body = {"error": {"code": status, "title": TITLES.get(status, "Error"), "message": error.message}}
    else:
        body = {error.code: {"code": status, "message": error.message}}
    return with_retry_after(ApiResponse(status, body), error)


def with_retry_after(response: ApiResponse, error: CloudError) -> ApiResponse:
    if error.retry_after is not None:
        response.headers["Retry-After"] = str(max(1, math.ceil(error.retry_after)))
    return response


def not_found(path: str) -> CloudError:
    error = CloudError(f"The resource could not be found: {path}")
    error.status = 404
    error.code = "itemNotFound"
    return error


def method_not_allowed(method: str, path: str) -> CloudError:
    error = CloudError(f"The method {method} is not allowed for {path}")
    error.status = 405
    error.code = "methodNotAllowed"
    return error
