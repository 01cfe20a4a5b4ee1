"""The status page in a real headless Chromium (Debian's `chromium`), against a running daemon.

Given the sample repository in a real git repository, converged by a daemon on SQLite and the
simulated cloud, then changed by a commit whose subject holds markup, when a browser loads `/` and
`/stacks/network` from the daemon's operator address, then it shows every stack with its status and
commit, the network's resources, a `converged` event and the history per commit, with the commit
subject as text. The browser is found by `tests/ensure_chromium.sh` (the Makefile's test target
runs it); without one the test is skipped, except under CI=true, where that is a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.daemon.gitops_world import DaemonWorld, sample_repository
from tests.daemon.page_tables import read_page
from tests.source.git_repos import commit_files

BROWSER_VARIABLE = "RECONCILER_TEST_CHROMIUM"
LOAD_SECONDS = 120  # a cold Chromium start on a loaded 2-core machine


@pytest.fixture
def chromium() -> str:
    found = os.environ.get(BROWSER_VARIABLE) or shutil.which("chromium")
    if found:
        return found
    if os.environ.get("CI") == "true":
        pytest.fail("no chromium: run tests/ensure_chromium.sh (the Makefile's test target does)")
    pytest.skip("no chromium: run tests/ensure_chromium.sh (the Makefile's test target does)")


def dump_dom(browser: str, url: str, profile: Path) -> str:
    """The DOM Chromium builds from `url`, as HTML (the page as the browser shows it)."""
    shown = subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",  # a container's root user has no sandbox to give it
            "--disable-gpu",
            f"--user-data-dir={profile}",
            "--dump-dom",
            url,
        ],
        capture_output=True,
        text=True,
        timeout=LOAD_SECONDS,
        check=True,
    )
    return shown.stdout


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, str, str]]:
    """A daemon converged at two commits and serving; (base URL, first commit, second commit)."""
    repo, first = sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        daemon.follow()
        daemon.converge(["network", "app"], first)
        template = (tmp_path / "repo" / "stacks" / "network" / "template.yaml").read_text()
        widened = template.replace("HTTP and SSH in", "HTTP, HTTPS and SSH in")
        second = commit_files(
            repo, {"stacks/network/template.yaml": widened}, "Describe the <b>web</b> & SSH group"
        )
        daemon.follow()
        daemon.converge(["network"], second)
        daemon.publish()
        daemon.daemon.http.start()
        host, port = daemon.daemon.http.address
        yield f"http://{host}:{port}", first, second
    finally:
        daemon.daemon.http.stop()
        daemon.close()


def test_the_overview_shows_every_stack_with_its_status_commit_and_events(
    chromium: str, served: tuple[str, str, str], tmp_path: Path
) -> None:
    base, first, second = served

    tables, texts = read_page(dump_dom(chromium, f"{base}/", tmp_path / "profile"))

    stacks = {row[0]: row for row in tables["stacks"]}
    assert (stacks["network"][1], stacks["network"][2]) == ("CONVERGED", second[:12])
    assert (stacks["app"][1], stacks["app"][2]) == ("CONVERGED", first[:12])
    assert texts["stack-count"] == "2"
    assert ("network", "converged", second[:12]) in {(row[1], row[2], row[3]) for row in tables["events"]}


def test_a_stack_page_shows_its_resources_graph_events_and_history(
    chromium: str, served: tuple[str, str, str], tmp_path: Path
) -> None:
    base, first, second = served

    dom = dump_dom(chromium, f"{base}/stacks/network", tmp_path / "profile")
    tables, texts = read_page(dom)

    assert texts["stack-name"] == "network"
    resources = {row[0]: row for row in tables["resources"]}
    assert resources["subnet"][1:3] == ["OS::Neutron::Subnet", "READY"]
    assert resources["router_interface"][4] == "router, subnet"
    assert 'data-resource="router_interface"' in dom  # the dependency graph drew it
    assert [row[0] for row in tables["history"]] == [second[:12], first[:12]]
    assert tables["history"][0][1:3] == ["Describe the <b>web</b> & SSH group", "CONVERGED"]
    assert "<b>web</b>" not in dom  # the subject is text, never markup
    assert {row[2] for row in tables["events"]} >= {"converged"}
