"""Checking that a push webhook comes from the forge: the shared secret, as each forge sends it.

- GitHub: `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the body keyed by the secret>`.
- Gitea (and Gogs, Forgejo): `X-Gitea-Signature` (`X-Gogs-Signature`): the same HMAC, bare hex.
- GitLab: `X-Gitlab-Token: <the secret itself>`.

Every comparison is constant-time (`hmac.compare_digest`). A request without any of these headers,
or with one that does not match, is refused and nothing is fetched; the secret is never logged
nor echoed.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass

SIGNATURE_HEADERS = ("X-Hub-Signature-256", "X-Gitea-Signature", "X-Gogs-Signature", "X-Gitlab-Token")


@dataclass(frozen=True)
class Accepted:
    """The request carries a matching signature (or no secret is configured)."""

    scheme: str


@dataclass(frozen=True)
class Refused:
    """Why the request is refused, as its response body says it."""

    reason: str


Verdict = Accepted | Refused


def hmac_sha256(secret: bytes, body: bytes) -> str:
    return hmac.new(secret, body, hashlib.sha256).hexdigest()


def _header(headers: Mapping[str, str], name: str) -> str | None:
    lowered = name.lower()
    return next((value for key, value in headers.items() if key.lower() == lowered), None)


def verify_push(secret: bytes | None, headers: Mapping[str, str], body: bytes) -> Verdict:
    """Whether a push webhook with `headers` and `body` was signed with `secret`."""
    if secret is None:
        return Accepted("none")
    github = _header(headers, "X-Hub-Signature-256")
    if github is not None:
        expected = "sha256=" + hmac_sha256(secret, body)
        return _matched("X-Hub-Signature-256", github.strip().lower(), expected)
    for name in ("X-Gitea-Signature", "X-Gogs-Signature"):
        gitea = _header(headers, name)
        if gitea is not None:
            return _matched(name, gitea.strip().lower(), hmac_sha256(secret, body))
    gitlab = _header(headers, "X-Gitlab-Token")
    if gitlab is not None:
        return _matched("X-Gitlab-Token", gitlab.encode(), secret)
    return Refused(f"no signature: expected one of {', '.join(SIGNATURE_HEADERS)} (a webhook secret is set)")


def _matched(scheme: str, given: str | bytes, expected: str | bytes) -> Verdict:
    given_bytes = given.encode() if isinstance(given, str) else given
    expected_bytes = expected.encode() if isinstance(expected, str) else expected
    if hmac.compare_digest(given_bytes, expected_bytes):
        return Accepted(scheme)
    return Refused(f"{scheme} does not match the webhook secret")
