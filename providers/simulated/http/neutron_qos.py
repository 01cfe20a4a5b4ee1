"""Neutron's QoS rules over HTTP, under their policy and type as Neutron serves them:
`/qos/policies/{policy_id}/{type}_rules[/{rule_id}]`. A rule is found only under its own policy and
type; anywhere else it is a 404 naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.routing import Handler, Route
from providers.simulated.inventory import Body
from providers.simulated.qos import RULE_TYPES

COLLECTION = "qos_rules"


def shown_rule(body: Body) -> Body:
    return {key: value for key, value in body.items() if key != "type" and key[0] != "_"}


class QosRulesFace:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self, prefix: str, service: str) -> list[Route]:
        routes = []
        for kind in RULE_TYPES:
            base = f"{prefix}/qos/policies/{{policy_id}}/{kind}_rules"
            table: list[tuple[str, str, Handler]] = [
                ("GET", base, self._lister(kind)),
                ("POST", base, self._creator(kind)),
                ("GET", base + "/{id}", self._getter(kind)),
                ("PUT", base + "/{id}", self._updater(kind)),
                ("DELETE", base + "/{id}", self._deleter(kind)),
            ]
            routes += [Route.of(method, path, handler, service) for method, path, handler in table]
        return routes

    def _lister(self, kind: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self.cloud.get("qos_policies", params["policy_id"])
            found = self.cloud.list(COLLECTION, where={"qos_policy_id": params["policy_id"], "type": kind})
            return reply(200, {f"{kind}_rules": [shown_rule(rule) for rule in found]})

        return handle

    def _creator(self, kind: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            fields: dict[str, Any] = dict(request.member(f"{kind}_rule"))
            created = self.cloud.create(
                COLLECTION, {**fields, "type": kind, "qos_policy_id": params["policy_id"]}
            )
            return reply(201, {f"{kind}_rule": shown_rule(created)})

        return handle

    def _getter(self, kind: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            return reply(200, {f"{kind}_rule": shown_rule(self._rule(kind, params))})

        return handle

    def _updater(self, kind: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._rule(kind, params)
            updated = self.cloud.update(COLLECTION, params["id"], request.member(f"{kind}_rule"))
            return reply(200, {f"{kind}_rule": shown_rule(updated)})

        return handle

    def _deleter(self, kind: str) -> Handler:
        def handle(request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
            self._rule(kind, params)
            self.cloud.delete(COLLECTION, params["id"])
            return reply(204)

        return handle

    def _rule(self, kind: str, params: Mapping[str, str]) -> Body:
        try:
            rule = self.cloud.get(COLLECTION, params["id"])
        except ItemNotFound:
            rule = {}
        if rule.get("qos_policy_id") != params["policy_id"] or rule.get("type") != kind:
            raise ItemNotFound(
                f"QoS rule {params['id']} for policy {params['policy_id']} could not be found."
            )
        return rule
