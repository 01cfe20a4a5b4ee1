"""The HTTP connection pools under an openstacksdk Connection, sized to the calls made at once.

requests keeps at most 10 connections per host by default (urllib3's pool `maxsize`): a call made
while all 10 are out opens one more, and handing it back to the full pool discards it with the
warning "Connection pool is full, discarding connection", one per call past the tenth; the
connection's TLS handshake is wasted with it. The engine makes up to its in-flight limit of calls at
once, to any service, so every host's pool (one per service endpoint, or one for all when the
services share a host) is widened to that. The adapter is keystoneauth's own keep-alive adapter,
with the TLS settings the session was built with.
"""

from __future__ import annotations

from typing import Any

from keystoneauth1.session import TCPKeepAliveAdapter

DEFAULT_CONNECTIONS = 128  # the engine's default in-flight limit (32 threads x 4 calls)
HOSTS = 16  # host pools kept at once: Keystone, Nova, Neutron, Cinder, Glance, with room to spare


def size_connection_pools(connection: Any, connections: int) -> None:
    """Mount adapters keeping up to `connections` connections per host on `connection`'s session."""
    requests_session = connection.session.session
    for prefix, current in list(requests_session.adapters.items()):
        adapter = TCPKeepAliveAdapter(
            tls_ciphers=getattr(current, "tls_ciphers", None),
            tls_min_version=getattr(current, "tls_min_version", None),
            pool_connections=HOSTS,
            pool_maxsize=connections,
        )
        requests_session.mount(prefix, adapter)
