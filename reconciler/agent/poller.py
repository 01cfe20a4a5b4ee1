"""Polling the metadata URL, running each deployment run once, and signalling its result.

A run is known by its entry `id` (the deployment, action and config hash): the ids run are kept in
`deployed.json` in the agent's state directory (with when each run started and ended), written
before the signal is sent, so an agent restarted (or a VM rebooted) never runs a script twice for
the same inputs. A signal that fails
to send is sent again at the next poll from the result kept beside the id.
"""

from __future__ import annotations

import json
import logging
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from reconciler.agent.hooks import HookChooser, hook_for

LOG = logging.getLogger(__name__)
HTTP_TIMEOUT = 30.0


@dataclass
class Agent:
    metadata_url: str
    state_dir: Path
    time_limit: float = 600.0
    etag: str | None = None
    hooks: HookChooser = hook_for
    clock: Callable[[], float] = time.time
    _deployed: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        if self._record.is_file():
            self._deployed = json.loads(self._record.read_text(encoding="utf-8"))

    @property
    def _record(self) -> Path:
        return self.state_dir / "deployed.json"

    def poll(self) -> int:
        """One poll: run every deployment not run yet; how many ran."""
        document = self._fetch()
        ran = 0
        for deployment in (document or {}).get("deployments") or []:
            if self.deploy(deployment):
                ran += 1
        self._resend_unsent()
        return ran

    def _fetch(self) -> Mapping[str, Any] | None:
        request = urllib.request.Request(
            self.metadata_url, headers={"If-None-Match": self.etag} if self.etag else {}
        )
        try:
            with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT) as answer:
                self.etag = answer.headers.get("ETag")
                found: Mapping[str, Any] = json.loads(answer.read())
                return found
        except urllib.error.HTTPError as error:
            if error.code != 304:
                LOG.warning("metadata: HTTP %d", error.code)
            return None
        except (urllib.error.URLError, OSError, ValueError) as error:
            LOG.warning("metadata: %s", error)
            return None

    def deploy(self, deployment: Mapping[str, Any]) -> bool:
        """Run one deployment unless its `id` ran already, and signal its result; whether it ran."""
        run_id = str(deployment.get("id"))
        if run_id in self._deployed:
            return False
        inputs = {item["name"]: item.get("value") for item in deployment.get("inputs") or []}
        started = self.clock()
        result = self.hooks(str(deployment.get("group")))(
            deployment, self.state_dir / "runs", self.time_limit
        )
        self._deployed[run_id] = {
            "signal_id": inputs.get("deploy_signal_id"),
            "verb": inputs.get("deploy_signal_verb") or "PUT",
            "result": result,
            "sent": False,
            "started": started,
            "ended": self.clock(),
        }
        self._save()
        self._send(run_id)
        return True

    def runs(self) -> Mapping[str, Mapping[str, Any]]:
        """Every run done, by its id: its result, and whether its signal was sent."""
        return {run_id: dict(run) for run_id, run in self._deployed.items()}

    def _resend_unsent(self) -> None:
        for run_id, run in list(self._deployed.items()):
            if not run.get("sent"):
                self._send(run_id)

    def _send(self, run_id: str) -> None:
        run = self._deployed[run_id]
        if not run.get("signal_id"):
            run["sent"] = True  # NO_SIGNAL: nobody waits for it
        else:
            body = json.dumps(run["result"]).encode()
            request = urllib.request.Request(
                str(run["signal_id"]),
                data=body,
                method=str(run["verb"]),
                headers={"Content-Type": "application/json"},
            )
            try:
                with urllib.request.urlopen(request, timeout=HTTP_TIMEOUT):
                    run["sent"] = True
            except urllib.error.HTTPError as error:
                run["sent"] = error.code == 404  # the run was superseded: its token is revoked
            except (urllib.error.URLError, OSError) as error:
                LOG.warning("signal: %s; sent again at the next poll", error)
        self._save()

    def _save(self) -> None:
        temporary = self._record.with_suffix(".tmp")
        temporary.write_text(json.dumps(self._deployed), encoding="utf-8")
        temporary.replace(self._record)


def run_forever(agent: Agent, interval: float, wait: Callable[[float], bool]) -> None:
    """Poll every `interval` seconds until `wait` says to stop."""
    while True:
        agent.poll()
        if wait(interval):
            return
