"""Deployment signals kept in batches: each answered for itself, only once kept, never for a token gone."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy.engine import URL, make_url

from state.software import DeploymentRow, SoftwareStore
from state.store import Store, open_store
from tests.state.test_connection_failures import terminate_connections
from timekeeping import SystemClock


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    opened = open_store(database_url, clock=SystemClock())
    yield opened
    opened.close()


def deploy(software: SoftwareStore, name: str, config_hash: str = "h1", group_id: str | None = None) -> str:
    """A deployment whose signal token's digest is returned."""
    entry = {"id": name, "outputs": [{"name": "answer"}]}
    row = DeploymentRow(
        name, "server-1", "app", name, "CREATE", "IN_PROGRESS", config_hash, entry, group_id=group_id
    )
    software.put_deployment(row, f"digest-of-{name}")
    return f"digest-of-{name}"


def judged(status: str, answer: str) -> Any:
    def judge(entry: Mapping[str, Any]) -> tuple[str, str, Mapping[str, Any]]:
        declared = [output["name"] for output in entry["outputs"]]
        return status, f"declared {declared}", {"answer": answer}

    return judge


def test_signals_sent_together_are_each_kept_with_their_own_verdict(store: Store) -> None:
    software = store.software()
    digests = [deploy(software, f"deployment-{n}") for n in range(20)]
    answers = [software.submit_deployment_signal(d, judged("COMPLETE", d)) for d in digests]
    # each answered with what waits for it: the deployment itself
    assert [answer.result() for answer in answers] == [f"deployment-{n}" for n in range(20)]
    rows = software.deployments([f"deployment-{n}" for n in range(20)])
    for n, digest in enumerate(digests):
        row = rows[f"deployment-{n}"]
        assert (row.status, row.status_reason, row.outputs) == (
            "COMPLETE",
            "declared ['answer']",
            {"answer": digest},
        )


def test_a_repeated_signal_is_kept_again_with_the_same_result(store: Store) -> None:
    software = store.software()
    digest = deploy(software, "deployment")
    assert software.judge_deployment_signal(digest, judged("FAILED", "no"))
    assert software.judge_deployment_signal(digest, judged("FAILED", "no"))
    assert software.deployments(["deployment"])["deployment"].outputs == {"answer": "no"}


def test_a_signal_for_a_revoked_or_unknown_token_is_not_kept_and_fails_no_other(store: Store) -> None:
    software = store.software()
    live = deploy(software, "live")
    revoked = deploy(software, "revoked")
    software.revoke_tokens("revoked")
    answers = [
        software.submit_deployment_signal(digest, judged("COMPLETE", "yes"))
        for digest in (revoked, live, "digest-of-nothing")
    ]
    assert [answer.result() for answer in answers] == [None, "live", None]
    rows = software.deployments(["live", "revoked"])
    assert (rows["live"].status, rows["revoked"].status) == ("COMPLETE", "IN_PROGRESS")


def test_a_group_members_signal_is_answered_with_the_group_that_waits_for_it(store: Store) -> None:
    software = store.software()
    member = deploy(software, "member-0", group_id="group")
    alone = deploy(software, "alone")
    answers = [software.submit_deployment_signal(d, judged("COMPLETE", "yes")) for d in (member, alone)]
    assert [answer.result() for answer in answers] == ["group", "alone"]


def test_a_signal_whose_verdict_cannot_be_kept_fails_alone(store: Store) -> None:
    software = store.software()
    good, bad = deploy(software, "good"), deploy(software, "bad")

    def unkeepable(entry: Mapping[str, Any]) -> tuple[str, str, Mapping[str, Any]]:
        return "COMPLETE", "", {"answer": object()}  # no JSON for it

    answers = [
        software.submit_deployment_signal(bad, unkeepable),
        software.submit_deployment_signal(good, judged("COMPLETE", "yes")),
    ]
    with pytest.raises((TypeError, sa.exc.StatementError)):
        answers[0].result()
    assert answers[1].result()
    assert software.deployments(["good"])["good"].status == "COMPLETE"


@pytest.mark.postgres
def test_a_signal_is_kept_when_the_server_dropped_the_connections_its_batch_would_use(
    postgres_url: str, postgres_server_url: URL
) -> None:
    opened = open_store(postgres_url, clock=SystemClock())
    try:
        software = opened.software()
        first, second = deploy(software, "first"), deploy(software, "second")
        assert software.judge_deployment_signal(first, judged("COMPLETE", "yes"))  # a connection pooled
        assert terminate_connections(postgres_server_url, make_url(postgres_url).database or "") >= 1
        assert software.judge_deployment_signal(second, judged("COMPLETE", "yes"))
        assert software.deployments(["second"])["second"].status == "COMPLETE"
    finally:
        opened.close()
