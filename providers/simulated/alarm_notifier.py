"""Delivering what alarms owe: an HTTP POST of Aodh's notification body to each action URL.

As Aodh's notifiers do: `http://` and `https://` URLs are POSTed the JSON body; `trust+http(s)://`
ones too, without the `trust+` prefix (Aodh would add a trust token; the URLs the reconciler hands
out carry their own credential); `log://` and Zaqar queues (`zaqar://`, `trust+zaqar://`) are
recorded but sent nowhere, since the simulated cloud has no Zaqar. A POST that fails is logged and
dropped, as Aodh drops it. An action URL may hold a signature, so only its scheme, host and path
are ever logged.
"""

from __future__ import annotations

import json
import logging
import threading
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from providers.simulated.alarm_evaluation import Notification

LOG = logging.getLogger(__name__)
TRUST_PREFIX = "trust+"
POST_TIMEOUT = 5.0


@dataclass(frozen=True)
class Delivery:
    """One notification handled: where it went (`None` for a scheme sent nowhere) and the answer."""

    notification: Notification
    status: int | None


def post_json(url: str, body: bytes) -> int:
    """POST `body` as JSON to `url`; the HTTP status of the answer."""
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"Content-Type": "application/json", "X-Openstack-Request-Id": f"req-{uuid.uuid4()}"},
    )
    try:
        with urllib.request.urlopen(request, timeout=POST_TIMEOUT) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def shown_url(url: str) -> str:
    """The URL without its query and fragment, which may hold a signature."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


class AlarmNotifier:
    """Sends notifications and remembers what was sent (for tests and the admin API)."""

    def __init__(self, post: Callable[[str, bytes], int] = post_json) -> None:
        self._post = post
        self._lock = threading.Lock()
        self.deliveries: list[Delivery] = []

    def deliver(self, notifications: Iterable[Notification]) -> list[Delivery]:
        done = [self._deliver_one(notification) for notification in notifications]
        with self._lock:
            self.deliveries.extend(done)
        return done

    def _deliver_one(self, notification: Notification) -> Delivery:
        url = notification.url.removeprefix(TRUST_PREFIX)
        if urlsplit(url).scheme not in ("http", "https"):
            return Delivery(notification, None)
        payload = json.dumps(dict(notification.body)).encode()
        try:
            status = self._post(url, payload)
        except (OSError, ValueError) as error:
            LOG.warning(
                "alarm %s: POST to %s failed: %s",
                notification.body.get("alarm_id"),
                shown_url(url),
                error.__class__.__name__,
            )
            return Delivery(notification, None)
        LOG.debug(
            "alarm %s: POST to %s -> HTTP %s", notification.body.get("alarm_id"), shown_url(url), status
        )
        return Delivery(notification, status)
