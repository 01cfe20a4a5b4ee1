"""The URLs VMs reach the daemon's agent API by, and the tokens in them.

Tokens are 192 random bits, handed out once in a URL or header and stored only as their digest.
Paths are the agent API's (`reconciler.daemon.agent_api`):

- `GET|HEAD {agent_url}/v1/metadata/{token}`: a server's deployments metadata;
- `PUT|POST {agent_url}/v1/signal/{token}`: a deployment's result;
- `POST {agent_url}/v1/signal` with `X-Auth-Token: {token}`: a wait condition handle's signal
  (Heat's `curl_cli` form; the token may also be the URL's last part).
"""

from __future__ import annotations

import secrets
import shlex
from dataclasses import dataclass

TOKEN_BYTES = 24


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


@dataclass(frozen=True)
class AgentLinks:
    """URLs under `agent_url`, the address VMs reach the agent API at."""

    agent_url: str

    def _base(self) -> str:
        return self.agent_url.rstrip("/")

    def metadata_url(self, token: str) -> str:
        return f"{self._base()}/v1/metadata/{token}"

    def signal_url(self, token: str) -> str:
        return f"{self._base()}/v1/signal/{token}"

    def handle_endpoint(self) -> str:
        return f"{self._base()}/v1/signal"

    def curl_cli(self, token: str) -> str:
        """Heat's curl command for a handle; a template appends `--data-binary '{...}'` to it."""
        header = shlex.quote(f"X-Auth-Token: {token}")
        return (
            f"curl -i -X POST -H {header} -H 'Content-Type: application/json' "
            f"-H 'Accept: application/json' {self.handle_endpoint()}"
        )
