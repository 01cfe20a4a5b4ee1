"""The status page's answers, from sources given to it: what it shows, how it pages, what it escapes.

Names of stacks and resources, commit subjects and the cloud's error messages are user input: the
page shows them as text, never as markup. It has no form and no script, and forbids loading
anything (its Content-Security-Policy). The real browser test (`test_status_page_browser`) loads
it from a running daemon.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from http import HTTPStatus

import pytest

from reconciler.daemon.dependency_svg import MAX_DRAWN
from reconciler.daemon.http_endpoints import Endpoints, HttpEndpoints
from reconciler.daemon.progress import Healthy
from reconciler.daemon.stack_board import StackEvent, StackView
from reconciler.daemon.status_page import RESOURCES_PER_PAGE, STACKS_PER_PAGE, PageSources, StatusPage
from reconciler.source.note_lines import CONVERGENCE, NoteLine
from reconciler.source.stack_history import CommitEntry
from state.resource_listing import ResourcePage, ResourceSummary
from tests.daemon.page_tables import read_page

HOSTILE = '<script>alert("x")</script>&'
SECRET = "s3cr3t-password"


class Sources:
    """The page's sources as plain data."""

    def __init__(self, views: Sequence[StackView], resources: Sequence[ResourceSummary] = ()) -> None:
        self.views = list(views)
        self.resources = list(resources)
        self.graphs: dict[str, Mapping[str, frozenset[str]]] = {}
        self.events: list[StackEvent] = []
        self.history: list[CommitEntry] = []

    def page(self) -> StatusPage:
        return StatusPage(
            PageSources(
                stacks=lambda: ("c" * 40, self.views),
                events=lambda count, stack: [e for e in self.events if stack in (None, e.stack)][:count],
                resources=self._page_of_resources,
                graph=self.graphs.get,
                history=lambda _stack, limit: self.history[:limit],
                redact=lambda _stack, text: text.replace(SECRET, "<hidden>"),
            )
        )

    def _page_of_resources(self, _stack: str, offset: int, limit: int) -> ResourcePage:
        return ResourcePage(tuple(self.resources[offset : offset + limit]), len(self.resources))


def _resource(name: str, status: str = "READY", error: str | None = None) -> ResourceSummary:
    return ResourceSummary(name, "OS::Nova::Server", f"id-{name}", status, error, None)


def _html(page: StatusPage, target: str) -> tuple[HTTPStatus, str]:
    answer = page.answer(target)
    assert answer is not None
    return answer.status, answer.body.decode()


def test_names_subjects_and_errors_are_shown_as_text_never_as_markup() -> None:
    sources = Sources(
        [StackView(HOSTILE, "FAILED", "a" * 40, reasons=(f"{HOSTILE}: refused",))],
        [_resource(HOSTILE, "FAILED", f"quota exceeded for {SECRET} {HOSTILE}")],
    )
    sources.graphs[HOSTILE] = {HOSTILE: frozenset()}
    sources.events = [StackEvent("failed", HOSTILE, "a" * 40, "FAILED", 0.0, reasons=(HOSTILE,))]
    line = NoteLine(CONVERGENCE, HOSTILE, "a" * 40, "FAILED", 0.0)
    sources.history = [CommitEntry("a" * 40, HOSTILE, line)]
    page = sources.page()

    _status, overview = _html(page, "/")
    status, stack = _html(page, "/stacks/%3Cscript%3Ealert(%22x%22)%3C%2Fscript%3E%26")

    assert status == HTTPStatus.OK
    for html in (overview, stack):
        assert "<script" not in html
    tables, texts = read_page(stack)
    assert texts["stack-name"] == HOSTILE
    assert tables["resources"][0][0] == HOSTILE
    assert tables["resources"][0][5] == f"quota exceeded for <hidden> {HOSTILE}"
    assert tables["history"][0][1] == HOSTILE
    assert SECRET not in stack


def test_the_overview_shows_a_page_of_stacks_and_counts_them_all() -> None:
    views = [StackView(f"stack-{n:04}", "CONVERGED", "b" * 40) for n in range(STACKS_PER_PAGE + 5)]
    page = Sources(views).page()

    tables, texts = read_page(_html(page, "/")[1])
    second, _ = read_page(_html(page, "/?page=2")[1])

    assert texts["stack-count"] == str(STACKS_PER_PAGE + 5)
    assert len(tables["stacks"]) == STACKS_PER_PAGE
    rest = range(STACKS_PER_PAGE, STACKS_PER_PAGE + 5)
    assert [row[0] for row in second["stacks"]] == [f"stack-{n:04}" for n in rest]
    assert second["stacks"][0][1:3] == ["CONVERGED", "b" * 12]


def test_a_stack_page_lists_a_page_of_resources_and_what_each_requires() -> None:
    resources = [_resource(f"node-{n:04}") for n in range(RESOURCES_PER_PAGE + 1)]
    sources = Sources([StackView("big", "CONVERGED", "d" * 40)], resources)
    sources.graphs["big"] = {r.logical_name: frozenset({"node-0000"}) - {r.logical_name} for r in resources}
    page = sources.page()

    tables, _texts = read_page(_html(page, "/stacks/big")[1])
    last, _ = read_page(_html(page, "/stacks/big?page=2")[1])

    assert len(tables["resources"]) == RESOURCES_PER_PAGE
    assert tables["resources"][1][4] == "node-0000"
    assert [row[0] for row in last["resources"]] == [f"node-{RESOURCES_PER_PAGE:04}"]
    assert len(sources.graphs["big"]) > MAX_DRAWN
    assert "<svg" not in _html(page, "/stacks/big")[1]  # too many to draw: the table says it


def test_a_stack_another_worker_runs_has_no_graph_here_and_an_unknown_one_is_404() -> None:
    page = Sources([StackView("elsewhere", "CONVERGED", "e" * 40, held=False)]).page()

    status, html = _html(page, "/stacks/elsewhere")
    missing, _ = _html(page, "/stacks/nope")

    assert status == HTTPStatus.OK and "this one does not" in html
    assert missing == HTTPStatus.NOT_FOUND
    assert page.answer("/favicon.ico") is None


@pytest.fixture
def served() -> Iterator[str]:
    page = Sources([StackView("app", "CONVERGED", "f" * 40)]).page()
    server = HttpEndpoints(
        "127.0.0.1", 0, Endpoints(health=Healthy, metrics=bytes, git_hook=lambda: None, page=page.answer)
    )
    server.start()
    try:
        host, port = server.address
        yield f"http://{host}:{port}"
    finally:
        server.stop()


def test_the_page_is_served_as_html_that_may_load_nothing_and_takes_no_writes(served: str) -> None:
    with urllib.request.urlopen(f"{served}/") as response:
        headers = response.headers
        body = response.read().decode()
    with pytest.raises(urllib.error.HTTPError) as posted:
        urllib.request.urlopen(urllib.request.Request(f"{served}/", data=b"x", method="POST"))

    assert headers["Content-Type"] == "text/html; charset=utf-8"
    assert headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert "<form" not in body and "<script" not in body
    assert posted.value.code == HTTPStatus.NOT_FOUND
