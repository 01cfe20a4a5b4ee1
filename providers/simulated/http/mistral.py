"""Mistral (workflow v2) over HTTP, under `/workflow/v2`: workflows made and changed from a YAML
definition sent as text (`POST` and `PUT /workflows`, the latter by `identifier`), shown and
deleted by id or name; cron triggers made from JSON, shown and deleted by name or id; executions
started, shown, listed and (once finished) deleted. Lists are
paged by `limit` and `marker` (an id) with a `next` URL. Errors are Mistral's WSME bodies
(`faultstring`), which openstacksdk reads the message from."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from providers.simulated.cloud import SimulatedCloud
from providers.simulated.errors import BadRequest, ItemNotFound
from providers.simulated.http.exchange import ApiRequest, ApiResponse, reply
from providers.simulated.http.paging import next_url, page_limit
from providers.simulated.http.routing import Route
from providers.simulated.inventory import Body
from providers.simulated.workflow_executions import shown as execution_shown
from providers.simulated.workflows import parsed_definition

SERVICE = "mistral"
ROOT = "/workflow/v2"


class Mistral:
    def __init__(self, cloud: SimulatedCloud) -> None:
        self.cloud = cloud

    def routes(self) -> list[Route]:
        return [
            Route.of("GET", "/workflow", self.versions, SERVICE, public=True),
            Route.of("GET", ROOT, self.versions, SERVICE, public=True),
            Route.of("POST", ROOT + "/workflows", self.create_workflow, SERVICE),
            Route.of("PUT", ROOT + "/workflows", self.update_workflow, SERVICE),
            Route.of("GET", ROOT + "/workflows", self.list_workflows, SERVICE),
            Route.of("GET", ROOT + "/workflows/{identifier}", self.get_workflow, SERVICE),
            Route.of("DELETE", ROOT + "/workflows/{identifier}", self.delete_workflow, SERVICE),
            Route.of("POST", ROOT + "/cron_triggers", self.create_trigger, SERVICE),
            Route.of("GET", ROOT + "/cron_triggers", self.list_triggers, SERVICE),
            Route.of("GET", ROOT + "/cron_triggers/{identifier}", self.get_trigger, SERVICE),
            Route.of("DELETE", ROOT + "/cron_triggers/{identifier}", self.delete_trigger, SERVICE),
            Route.of("POST", ROOT + "/executions", self.create_execution, SERVICE),
            Route.of("GET", ROOT + "/executions", self.list_executions, SERVICE),
            Route.of("GET", ROOT + "/executions/{id}", self.get_execution, SERVICE),
            Route.of("DELETE", ROOT + "/executions/{id}", self.delete_execution, SERVICE),
        ]

    def versions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        version = {"id": "v2.0", "status": "CURRENT", "links": [{"rel": "self", "href": request.url(ROOT)}]}
        return reply(200, {"versions": [version]})

    # workflows
    def create_workflow(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        created = self.cloud.create(
            "workflows", {"definition": request.body, "scope": request.first("scope")}
        )
        return reply(201, {"workflows": [created]})

    def update_workflow(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        identifier = request.first("identifier")
        if identifier:
            current = self.cloud.get("workflows", self._workflow_id(identifier))
        else:  # without an identifier Mistral finds the workflow by the name in the definition
            current = self._by_name("workflows", next(iter(parsed_definition(request.body))), "Workflow")
        updated = self.cloud.update("workflows", current["id"], {"definition": request.body})
        return reply(200, {"workflows": [updated]})

    def list_workflows(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "workflows")

    def get_workflow(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self.cloud.get("workflows", self._workflow_id(params["identifier"])))

    def delete_workflow(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        self.cloud.delete("workflows", self._workflow_id(params["identifier"]))
        return reply(204)

    # cron triggers
    def create_trigger(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        return reply(201, self.cloud.create("cron_triggers", request.body))

    def list_triggers(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "cron_triggers")

    def get_trigger(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, self._by_name("cron_triggers", params["identifier"], "Cron trigger"))

    def delete_trigger(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        trigger = self._by_name("cron_triggers", params["identifier"], "Cron trigger")
        self.cloud.delete("cron_triggers", trigger["id"])
        return reply(204)

    # executions
    def create_execution(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        if not isinstance(request.body, Mapping):
            raise BadRequest("Malformed request body: expected a JSON object.")
        return reply(201, execution_shown(self.cloud.create("executions", request.body)))

    def list_executions(self, request: ApiRequest, _: Mapping[str, str]) -> ApiResponse:
        return self._listed(request, "executions", execution_shown)

    def get_execution(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        return reply(200, execution_shown(self.cloud.get("executions", params["id"])))

    def delete_execution(self, request: ApiRequest, params: Mapping[str, str]) -> ApiResponse:
        execution = self.cloud.get("executions", params["id"])
        if execution["state"] == "RUNNING":
            raise BadRequest(
                f"Execution {params['id']} is RUNNING; only a finished execution can be deleted."
            )
        self.cloud.delete("executions", params["id"])
        return reply(204)

    # shared
    def _listed(
        self, request: ApiRequest, collection: str, show: Callable[[Body], Body] = lambda body: body
    ) -> ApiResponse:
        items, more = self.cloud.page(collection, limit=page_limit(request), marker=request.first("marker"))
        body: dict[str, object] = {collection: [show(item) for item in items]}
        following = next_url(request, items, more)
        if following:
            body["next"] = following
        return reply(200, body)

    def _workflow_id(self, identifier: str) -> str:
        return str(self._by_name("workflows", identifier, "Workflow")["id"])

    def _by_name(self, collection: str, identifier: str, what: str) -> Body:
        """An item by id or, failing that, by name, as Mistral's identifiers are either."""
        named = self.cloud.list(collection, name=identifier) or self.cloud.list(collection, ids=[identifier])
        if not named:
            raise ItemNotFound(f"{what} not found [identifier={identifier}]")
        return named[0]
