"""Deployments put at once from many threads are written together, and each reads as if put alone:
its row, its one token, and the metadata of its server (and of the server it left) changed."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from state import open_store
from state.software import DeploymentRow, SoftwareStore
from state.store import Store
from timekeeping.testing import SteppedClock

PUTS = 40
SERVERS = 8


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    opened = open_store(database_url, clock=SteppedClock())
    yield opened
    opened.close()


def row(index: int, server: str, config_hash: str) -> DeploymentRow:
    entry = {"id": f"deployment-{index}", "name": "config", "group": "script", "config": config_hash}
    return DeploymentRow(
        f"deployment-{index}",
        server,
        "stack",
        f"deployment-{index}",
        "CREATE",
        "IN_PROGRESS",
        config_hash,
        entry,
    )


def put_at_once(software: SoftwareStore, puts: list[tuple[DeploymentRow, str | None]]) -> None:
    start = threading.Barrier(len(puts))
    errors: list[BaseException] = []

    def put(deployment: DeploymentRow, digest: str | None) -> None:
        start.wait()
        try:
            software.put_deployment(deployment, digest)
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=put, args=item) for item in puts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not errors


def test_deployments_put_together_each_read_as_put_alone(store: Store) -> None:
    software = store.software()
    put_at_once(
        software,
        [(row(index, f"server-{index % SERVERS}", "first"), f"first-{index}") for index in range(PUTS)],
    )
    touched = {index: software.server_metadata(f"server-{index}").modified_at for index in range(SERVERS)}
    assert all(modified_at is not None for modified_at in touched.values())

    # again, each on the next server, with a new token; one deployment twice in the same burst
    again = [
        (row(index, f"server-{(index + 1) % SERVERS}", "second"), f"second-{index}") for index in range(PUTS)
    ]
    put_at_once(software, [*again, (row(0, "server-1", "third"), "third-0")])

    stored = software.deployments([f"deployment-{index}" for index in range(PUTS)])
    for index in range(1, PUTS):
        assert stored[f"deployment-{index}"].config_hash == "second"
        assert stored[f"deployment-{index}"].server_id == f"server-{(index + 1) % SERVERS}"
        # the token of the last put is the deployment's only one
        assert software.grant(f"first-{index}") is None
        grant = software.grant(f"second-{index}")
        assert grant is not None and grant.subject == f"deployment-{index}"
    last = stored["deployment-0"].config_hash  # whichever of its two puts went second
    assert last in ("second", "third")
    assert software.grant(f"{last}-0") is not None
    assert software.grant("second-0" if last == "third" else "third-0") is None
    assert software.grant("first-0") is None
    for index in range(SERVERS):  # every server gained or lost a deployment: its metadata moved on
        before, modified_at = touched[index], software.server_metadata(f"server-{index}").modified_at
        assert before is not None and modified_at is not None and modified_at > before
    entries = software.server_metadata("server-2").entries
    assert {entry["id"] for entry in entries} >= {"deployment-1", "deployment-9"}
