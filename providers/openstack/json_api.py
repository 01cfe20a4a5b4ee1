"""JSON calls to one OpenStack service through the SDK's service proxy.

The SDK's resource layer builds a Python object per resource, which costs milliseconds of client
CPU each: a list of 10,000 servers would take most of a minute. So this provider writes its own
request bodies (the tables in the type modules) and reads plain JSON, while the SDK still does
what it is good at: clouds.yaml, Keystone authentication and token refresh, the service catalog,
endpoint and microversion headers, and the error body parsing in `errors.py`.

Lists are paged with `limit` and `marker`; the next marker comes from the `*_links` "next" entry
the service returns (Nova, Neutron, Cinder) or Glance's `next` link, so one page is one request.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests

from providers.interface import ProviderError
from providers.openstack.errors import raise_for_response, redacted, secret_values, translated_errors

PAGE_SIZE = 1000
LOG = logging.getLogger(__name__)

Query = Mapping[str, str | int | list[str]]


@dataclass(frozen=True)
class JsonApi:
    """One service (compute, network, block-storage, image) spoken to in JSON."""

    proxy: Any  # an openstack.proxy.Proxy: a keystoneauth Adapter bound to one service endpoint
    service: str  # for messages: "compute", "network", ...
    microversion: str | None = None

    def get(self, path: str, params: Query | None = None) -> Any:
        return self._call("GET", path, params=params)

    def post(self, path: str, body: Mapping[str, Any]) -> Any:
        return self._call("POST", path, body=body)

    def put(self, path: str, body: Mapping[str, Any]) -> Any:
        return self._call("PUT", path, body=body)

    def patch(
        self,
        path: str,
        body: Mapping[str, Any] | list[dict[str, Any]],
        content_type: str | None = None,
    ) -> Any:
        """A PATCH of JSON (Keystone), or of a list of operations in a media type of the service's
        (Glance's) when `content_type` names one."""
        if content_type is None and not isinstance(body, list):
            return self._call("PATCH", path, body=body)
        headers = {"Content-Type": content_type or "application/json"}
        response = self._send("PATCH", path, body=body, headers=headers)
        return response.json() if response.content else {}

    def delete(self, path: str) -> None:
        self._call("DELETE", path)

    def with_headers(
        self,
        method: str,
        path: str,
        *,
        headers: Mapping[str, str] | None = None,
        params: Query | None = None,
        body: Mapping[str, Any] | list[dict[str, Any]] | None = None,
    ) -> tuple[Mapping[str, str], Any]:
        """A call with headers of its own (Swift's metadata, Zaqar's Client-ID): the answer's headers
        and body."""
        response = self._send(method, path, params=params, headers=headers, body=body)
        return response.headers, (response.json() if response.content else None)

    def send_text(self, method: str, path: str, text: str, params: Query | None = None) -> Any:
        """A call whose body is plain text (Mistral's workflow definitions): the JSON answer."""
        response = self._send(method, path, params=params, text=text)
        return response.json() if response.content else {}

    def list_all(self, path: str, key: str, params: Query | None = None) -> Iterator[dict[str, Any]]:
        """Every item of a paged collection, one request per page."""
        query: dict[str, Any] = {"limit": PAGE_SIZE, **(params or {})}
        while True:
            page = self.get(path, query)
            items: list[dict[str, Any]] = page.get(key) or []
            yield from items
            next_marker = self._next_marker(page, key)
            if next_marker is None or not items:
                return
            query["marker"] = next_marker

    def _call(
        self,
        method: str,
        path: str,
        params: Query | None = None,
        body: Mapping[str, Any] | None = None,
    ) -> Any:
        response = self._send(method, path, params=params, body=body)
        if not response.content:
            return {}
        return response.json()

    def _send(
        self,
        method: str,
        path: str,
        *,
        params: Query | None = None,
        body: Mapping[str, Any] | list[dict[str, Any]] | None = None,
        headers: Mapping[str, str] | None = None,
        text: str | None = None,
    ) -> requests.Response:
        action = f"{method} {self.service} {path}"
        # log=False: keystoneauth would log whole request and response bodies at DEBUG, and those
        # hold admin passwords, user data and generated private keys. One line per call instead.
        kwargs: dict[str, Any] = {"raise_exc": False, "log": False}
        if params:
            kwargs["params"] = params
        if body is not None:
            kwargs["json"] = body
        if text is not None:
            kwargs["data"] = text.encode()
            headers = {"Content-Type": "text/plain", **(headers or {})}
        if headers:
            kwargs["headers"] = dict(headers)
        if self.microversion:
            kwargs["microversion"] = self.microversion
        with translated_errors(action):
            response: requests.Response = self.proxy.request(path, method, **kwargs)
        LOG.debug("%s -> HTTP %s", action, response.status_code)
        try:
            raise_for_response(response, action)
        except ProviderError as error:
            safe = redacted(error, secret_values(body))
            if safe is error:
                raise
            raise safe from error.__cause__
        return response

    @staticmethod
    def _next_marker(page: Mapping[str, Any], key: str) -> str | None:
        href: str | None = None
        for link in page.get(f"{key}_links") or []:
            if link.get("rel") == "next":
                href = link.get("href")
        if href is None and isinstance(page.get("next"), str):
            href = page["next"]  # Glance v2
        if not href:
            return None
        markers = parse_qs(urlsplit(href).query).get("marker")
        return markers[-1] if markers else None
