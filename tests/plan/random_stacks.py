"""Random stacks for the plan-equals-apply property: a small model of a template, drawn by hypothesis.

A `StackModel` says which resources exist and the values that decide their fate; `template()` writes
it as HOT. Every reference points at a resource the model holds, so every drawn model is valid:

- `token`, an OS::Heat::RandomString whose `length` change replaces it;
- `net` (its `name` changes in place), `port` on it (its `name` reads the token's value when there
  is a token), `server` on the port (`name` in place, `user_data` replaces it under its default
  update policy, `metadata` reads the token's value) and `label`, an OS::Heat::Value reading the
  server's id;
- `volume`, an OS::Cinder::Volume (`name` in place), with an explicit `depends_on` on the token or
  the net when drawn;
- `nodes`, a ResourceGroup of random strings: its `count` adds or removes members, a changed member
  `length` replaces every member;
- `prefix`, a parameter the volume's `name` reads, directly and through a condition.

Attributes are read only from the token, which is never updated in place: the plan takes the
attributes of a resource updated in place as changing, which apply may find they did not.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import yaml
from hypothesis import strategies as st

IMAGE = "cirros-0.6.2-x86_64-disk"


@dataclass(frozen=True)
class StackModel:
    token_length: int | None  # None: no token
    net_name: str | None  # None: no net (and so no port, server or label)
    port_name: str | None  # None: no port (and so no server or label)
    server: tuple[str, str] | None  # (name, user_data)
    label: bool
    volume_name: str | None
    volume_after: str | None  # "token" or "net": an explicit depends_on
    group: tuple[int, int] | None  # (count, member length)
    prefix: str = "p1"  # the `prefix` parameter's default

    def template(self) -> str:
        resources: dict[str, Any] = {}
        token = self.token_length is not None
        if token:
            resources["token"] = _resource("OS::Heat::RandomString", length=self.token_length)
        if self.net_name is not None:
            resources["net"] = _resource("OS::Neutron::Net", name=self.net_name)
        if self.net_name is not None and self.port_name is not None:
            name: Any = self.port_name
            if token:
                name = {"list_join": ["-", [self.port_name, {"get_attr": ["token", "value"]}]]}
            resources["port"] = _resource("OS::Neutron::Port", network={"get_resource": "net"}, name=name)
        if self.port_name is not None and self.server is not None:
            server_name, user_data = self.server
            resources["server"] = _resource(
                "OS::Nova::Server",
                name=server_name,
                image=IMAGE,
                flavor="m1.small",
                user_data=user_data,
                metadata={"token": {"get_attr": ["token", "value"]}} if token else {},
                networks=[{"port": {"get_resource": "port"}}],
            )
            if self.label:
                resources["label"] = _resource("OS::Heat::Value", value={"get_resource": "server"})
        if self.volume_name is not None:
            prefixed = {"list_join": ["-", [{"get_param": "prefix"}, self.volume_name]]}
            name = {"if": ["unprefixed", self.volume_name, prefixed]}
            resources["volume"] = _resource("OS::Cinder::Volume", size=1, name=name)
            if self.volume_after is not None and self.volume_after in resources:
                resources["volume"]["depends_on"] = [self.volume_after]
        if self.group is not None:
            count, length = self.group
            member = _resource("OS::Heat::RandomString", length=length)
            resources["nodes"] = _resource("OS::Heat::ResourceGroup", count=count, resource_def=member)
        document = {
            "heat_template_version": "2018-08-31",
            "parameters": {"prefix": {"type": "string", "default": self.prefix}},
            "conditions": {"unprefixed": {"equals": [{"get_param": "prefix"}, "p1"]}},
            "resources": resources,
        }
        return str(yaml.safe_dump(document, sort_keys=False))


def _resource(type_name: str, **properties: Any) -> dict[str, Any]:
    return {"type": type_name, "properties": properties}


FIELDS = [
    "token_length",
    "net_name",
    "port_name",
    "server",
    "label",
    "volume_name",
    "volume_after",
    "group",
    "prefix",
]
NAMES = st.sampled_from(["alpha", "beta", "gamma"])
LENGTHS = st.integers(min_value=8, max_value=10)


@st.composite
def stack_models(draw: st.DrawFn) -> StackModel:
    net = draw(st.none() | NAMES)
    port = draw(st.none() | NAMES) if net is not None else None
    server = (
        draw(st.none() | st.tuples(NAMES, st.sampled_from(["boot-1", "boot-2"])))
        if port is not None
        else None
    )
    return StackModel(
        token_length=draw(st.none() | LENGTHS),
        net_name=net,
        port_name=port,
        server=server,
        label=server is not None and draw(st.booleans()),
        volume_name=draw(st.none() | NAMES),
        volume_after=draw(st.sampled_from([None, "token", "net"])),
        group=draw(st.none() | st.tuples(st.integers(min_value=0, max_value=3), LENGTHS)),
        prefix=draw(st.sampled_from(["p1", "p2", "p3"])),
    )


@st.composite
def changed_models(draw: st.DrawFn, model: StackModel) -> StackModel:
    """`model` with one to three of its values redrawn (resources added or removed among them)."""
    fresh = draw(stack_models())
    fields = draw(
        st.lists(
            st.sampled_from(FIELDS),
            min_size=1,
            max_size=3,
            unique=True,
        )
    )
    changed = replace(model, **{field: getattr(fresh, field) for field in fields})
    # keep the model whole: no port without a net, no server without a port, no label without one
    if changed.net_name is None:
        changed = replace(changed, port_name=None)
    if changed.port_name is None:
        changed = replace(changed, server=None)
    if changed.server is None:
        changed = replace(changed, label=False)
    return changed
