"""The simulated cloud's servers as machines: who each one is, and whom it may reach.

What a VM learns from its cloud, read from the simulated cloud's model:

- its host name (Nova's, from the server's name), the public key of its key pair (Nova's
  metadata), and the default user of its image: the image's `default_user` property, and for an
  image without one `ec2-user`, the user Heat's cfn/ec2 images give cloud-init;
- its neighbours: the ACTIVE servers with a port on one of its networks, by host name and fixed
  address, as Neutron's DNS on the network resolves them.

`reachable` is the simulated network's verdict on one connection from a server to an address and
TCP port: the address must be a neighbour's fixed address, and the security groups of both ports
must let it pass (the source's egress, the target's ingress: protocol, port range, remote prefix
or remote group). A port without security groups filters nothing. Anything else, the host's own
addresses and other clouds' servers included, is unreachable.
"""

from __future__ import annotations

import functools
import ipaddress
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import accumulate, filterfalse
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from reconciler.agent.sandbox_machine import DEFAULT_USER, Machine, hostname_of

ACTIVE = "ACTIVE"
TCP = ("tcp", "6")


@dataclass(frozen=True)
class Attachment:
    """One port of a server: where it is and what filters it."""

    server_id: str
    network_id: str
    addresses: tuple[str, ...]
    groups: tuple[str, ...]


def attachments(cloud: SimulatedCloud) -> list[Attachment]:
    """The ports of the cloud's ACTIVE servers."""
    return Attachments().of(cloud)


class Attachments:
    """`attachments(cloud)`, each port's made once for as long as its stored body is the same.

    Every machine of a network of thousands asks for its neighbours as it boots and at each run,
    and the cloud replaces a port's body whenever it changes, never edits one in place.
    """

    def __init__(self) -> None:
        self._made: dict[str, tuple[Mapping[str, Any], Attachment]] = {}

    def of(self, cloud: SimulatedCloud) -> list[Attachment]:
        active = {str(server["id"]) for server in cloud.items("servers") if server.get("status") == ACTIVE}
        known, made = self._made, {}
        found: list[Attachment] = []
        for port in cloud.items("ports"):
            port_id = str(port["id"])
            entry = known.get(port_id)
            if entry is None or entry[0] is not port:
                entry = (port, _attachment(port))
            made[port_id] = entry
            if port.get("device_id") in active:
                found.append(entry[1])
        self._made = made  # the ports gone are forgotten with it
        return found


def _attachment(port: Mapping[str, Any]) -> Attachment:
    return Attachment(
        str(port.get("device_id")),
        str(port["network_id"]),
        tuple(str(fixed["ip_address"]) for fixed in port.get("fixed_ips") or ()),
        tuple(str(group) for group in port.get("security_groups") or ()),
    )


def machine_of(cloud: SimulatedCloud, server: Mapping[str, Any], ports: list[Attachment]) -> Machine:
    """The machine `server` is, its neighbours found among `ports`."""
    return Neighbourhood(cloud, ports).machine(server)


@dataclass(frozen=True)
class Listing:
    """One network's /etc/hosts entries, every port's in one run (in the ports' order), and where
    each port's are: a server's neighbours are the run without its own, cut out by slicing."""

    hosts: tuple[tuple[str, str], ...]  # (address, host name)
    spans: Mapping[int, tuple[int, int]]  # a port's entries, by its place: [start, end) in `hosts`
    addresses: tuple[str, ...]  # sorted, each once
    counts: Mapping[str, int]  # how many entries hold each address

    def without(self, places: list[int]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
        """The entries and the sorted addresses of every port but those at `places` (on this network)."""
        cuts, gone = self._cut(places)
        if not cuts:
            return self.hosts, self.addresses
        hosts: tuple[tuple[str, str], ...] = ()
        start = 0
        for first, end in cuts:
            hosts += self.hosts[start:first]
            start = end
        hosts += self.hosts[start:]
        return hosts, tuple(filterfalse(gone.__contains__, self.addresses)) if gone else self.addresses

    def text_without(self, places: list[int]) -> tuple[str, str]:
        """`without(places)` as the wire carries it: /etc/hosts lines, and the addresses as words;
        cut from the network's text made once, not formatted again for every machine."""
        cuts, gone = self._cut(places)
        text, starts = self._text
        pieces: list[str] = []
        start = 0
        for first, end in cuts:
            pieces.append(text[starts[start] : starts[first]])
            start = end
        pieces.append(text[starts[start] :])
        peers = " ".join(filterfalse(gone.__contains__, self.addresses)) if gone else self._peers_text
        return "".join(pieces), peers

    def _cut(self, places: list[int]) -> tuple[list[tuple[int, int]], set[str]]:
        """The spans of the entries at `places`, in order, and the addresses only they hold."""
        cuts = sorted(self.spans[place] for place in places)
        own = Counter(address for first, end in cuts for address, _ in self.hosts[first:end])
        return cuts, {address for address, count in own.items() if count == self.counts[address]}

    @functools.cached_property
    def _text(self) -> tuple[str, tuple[int, ...]]:
        """Every entry as a line of /etc/hosts, in one text, and where each entry's line starts."""
        lines = [f"{address} {name}\n" for address, name in self.hosts]
        return "".join(lines), tuple(accumulate(map(len, lines), initial=0))

    @functools.cached_property
    def _peers_text(self) -> str:
        return " ".join(self.addresses)


class Neighbourhood:
    """Who every server is, and its neighbours, at one state of the cloud: its servers and
    `ports` (the ACTIVE servers' attachments) indexed once, each network's entries for /etc/hosts
    made once (`Listing`), so a fleet of thousands asking for its machines between two changes of
    the cloud costs a lookup and a few slices each, not a walk through every server and port. A
    new state of the cloud's servers, ports, key pairs or images needs a new neighbourhood.
    """

    def __init__(self, cloud: SimulatedCloud, ports: list[Attachment]) -> None:
        self._cloud = cloud
        self._ports = ports
        self._servers = {str(body["id"]): body for body in cloud.items("servers")}
        self._on_network: dict[str, list[int]] = {}  # a network's ports, by their place in `ports`
        self._places_of: dict[str, list[int]] = {}  # a server's ports, by their place
        self._networks_of: dict[str, set[str]] = {}
        for place, port in enumerate(ports):
            self._on_network.setdefault(port.network_id, []).append(place)
            self._places_of.setdefault(port.server_id, []).append(place)
            self._networks_of.setdefault(port.server_id, set()).add(port.network_id)
        self._listings: dict[str, Listing] = {}

    def server(self, server_id: str) -> Mapping[str, Any] | None:
        return self._servers.get(server_id)

    def machine(self, server: Mapping[str, Any]) -> Machine:
        server_id = str(server["id"])
        networks = self._networks_of.get(server_id, set())
        if len(networks) == 1:
            hosts, peers = self._listing(next(iter(networks))).without(self._places_of[server_id])
        else:  # on no network, or on several: their entries in the ports' order
            places = sorted(place for network in networks for place in self._on_network[network])
            hosts = tuple(
                entry
                for place in places
                if self._ports[place].server_id != server_id
                for entry in self._entries(place)
            )
            peers = tuple(sorted({address for address, _ in hosts}))
        return Machine(
            hostname=hostname_of(str(server.get("name") or "")),
            default_user=_default_user(self._cloud, server),
            authorized_keys=_public_keys(self._cloud, server),
            hosts=hosts,
            peers=peers,
        )

    def document(self, server: Mapping[str, Any]) -> dict[str, Any]:
        """`machine_document(self.machine(server))`, its neighbours cut from its network's text."""
        server_id = str(server["id"])
        networks = self._networks_of.get(server_id, set())
        if len(networks) != 1:
            return machine_document(self.machine(server))
        hosts, peers = self._listing(next(iter(networks))).text_without(self._places_of[server_id])
        return {
            "hostname": hostname_of(str(server.get("name") or "")),
            "default_user": _default_user(self._cloud, server),
            "authorized_keys": list(_public_keys(self._cloud, server)),
            "hosts": hosts,
            "peers": peers,
        }

    def _listing(self, network: str) -> Listing:
        listing = self._listings.get(network)
        if listing is None:
            hosts: list[tuple[str, str]] = []
            spans: dict[int, tuple[int, int]] = {}
            for place in self._on_network[network]:
                start = len(hosts)
                hosts += self._entries(place)
                spans[place] = (start, len(hosts))
            counts = Counter(address for address, _ in hosts)
            listing = self._listings[network] = Listing(tuple(hosts), spans, tuple(sorted(counts)), counts)
        return listing

    def _entries(self, place: int) -> tuple[tuple[str, str], ...]:
        """The port's IPv4 addresses with its server's host name (none for a server gone)."""
        port = self._ports[place]
        body = self._servers.get(port.server_id)
        if body is None:
            return ()
        name = _cached_hostname(str(body.get("name") or ""))
        # IPv4 only: every IPv6 address has a colon, no IPv4 one does
        return tuple((address, name) for address in port.addresses if ":" not in address)


def machine_document(machine: Machine) -> dict[str, Any]:
    """`machine` as JSON for the wire (`machine_from` reads it back): its neighbours as the lines
    of /etc/hosts and its peers as words, where a list of pairs would cost the encoder and the
    decoder each a thousand small arrays for every machine of a thousand-server network."""
    return {
        "hostname": machine.hostname,
        "default_user": machine.default_user,
        "authorized_keys": list(machine.authorized_keys),
        "hosts": "".join(f"{address} {name}\n" for address, name in machine.hosts),
        "peers": " ".join(machine.peers),
    }


def machine_from(document: Mapping[str, Any] | None) -> Machine | None:
    if document is None:
        return None
    return Machine(
        hostname=str(document["hostname"]),
        default_user=str(document["default_user"]),
        authorized_keys=tuple(str(key) for key in document["authorized_keys"]),
        hosts=tuple(
            (address, name)
            for address, _, name in (line.partition(" ") for line in str(document["hosts"]).splitlines())
        ),
        peers=tuple(str(document["peers"]).split()),
    )


@functools.lru_cache(maxsize=1 << 16)
def _cached_hostname(server_name: str) -> str:
    return hostname_of(server_name)


def _default_user(cloud: SimulatedCloud, server: Mapping[str, Any]) -> str:
    image = server.get("image")
    image_id = image.get("id") if isinstance(image, Mapping) else None
    found = next((body for body in cloud.items("images") if body.get("id") == image_id), None)
    return str((found or {}).get("default_user") or DEFAULT_USER)


def _public_keys(cloud: SimulatedCloud, server: Mapping[str, Any]) -> tuple[str, ...]:
    key_name = server.get("key_name")
    found = next((body for body in cloud.items("keypairs") if key_name and body.get("id") == key_name), None)
    return (str(found["public_key"]),) if found and found.get("public_key") else ()


@dataclass(frozen=True)
class Passage:
    """A TCP connection as one port's security groups see it: leaving or arriving, from or to whom."""

    direction: str  # egress (the source's port) or ingress (the target's)
    port: int
    remote: str  # the other end's address
    remote_groups: tuple[str, ...]  # the other end's security groups


def reachable(
    cloud: SimulatedCloud, source_id: str, address: str, port: int, ports: list[Attachment] | None = None
) -> str | None:
    """The server a TCP connection from `source_id` to `address`:`port` reaches, if any
    (`ports`: `attachments(cloud)`, when the caller has them)."""
    ports = attachments(cloud) if ports is None else ports
    sources = [p for p in ports if p.server_id == source_id]
    rules = _rules(cloud)
    for target in ports:
        if address not in target.addresses or target.server_id == source_id:
            continue
        for source in sources:
            if source.network_id != target.network_id or not source.addresses:
                continue
            leaving = Passage("egress", port, address, target.groups)
            arriving = Passage("ingress", port, source.addresses[0], source.groups)
            if _allows(rules, source.groups, leaving) and _allows(rules, target.groups, arriving):
                return target.server_id
    return None


def _rules(cloud: SimulatedCloud) -> dict[str, list[Mapping[str, Any]]]:
    groups = cloud.items("security_groups")
    return {str(group["id"]): list(group.get("security_group_rules") or ()) for group in groups}


def _allows(rules: Mapping[str, list[Mapping[str, Any]]], groups: Iterable[str], passage: Passage) -> bool:
    """Whether a port's security groups let this passage through (no groups: nothing filtered)."""
    chosen = list(groups)
    return not chosen or any(_matches(rule, passage) for group in chosen for rule in rules.get(group, ()))


def _matches(rule: Mapping[str, Any], passage: Passage) -> bool:
    if rule.get("direction") != passage.direction or rule.get("ethertype", "IPv4") != "IPv4":
        return False
    if rule.get("protocol") not in (None, "any", *TCP):
        return False
    low, high = rule.get("port_range_min"), rule.get("port_range_max")
    if low is not None and not int(low) <= passage.port <= int(high if high is not None else low):
        return False
    prefix = rule.get("remote_ip_prefix")
    if prefix and ipaddress.ip_address(passage.remote) not in ipaddress.ip_network(str(prefix), strict=False):
        return False
    group = rule.get("remote_group_id")
    return not group or group in passage.remote_groups
