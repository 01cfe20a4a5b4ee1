"""Hidden values sealed at rest: the rows hold no hidden text in clear, the store hands the values
back as they were, and keys rotate (the new key first, the old ones still read). On SQLite and on
the real PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from state.database import create_database_engine
from state.fencing import Fence
from state.lease_results import Acquired
from state.lease_settings import LeaseSettings
from state.records import RecordWrite
from state.sealing import Sealer, UnreadableSeal, new_key
from state.store import Store, open_store
from state.work_queue import NewWorkItem
from timekeeping.testing import SteppedClock

SECRET = "Hidden-Value-4711"
OLD_KEY, NEW_KEY = new_key(), new_key()


def _open(url: str, *keys: bytes) -> Store:
    clock = SteppedClock()
    return open_store(
        url, clock=clock, sleeper=clock, settings=LeaseSettings(shard_count=4), sealer=Sealer(keys)
    )


@pytest.fixture
def store(database_url: str) -> Iterator[Store]:
    opened = _open(database_url, OLD_KEY)
    opened.hide("app", [SECRET, "xy"])
    yield opened
    opened.close()


def _fence(store: Store, stack: str) -> Fence:
    shard = store.ensure_stack(stack).shard
    acquired = store.acquire("w1", shard)
    assert isinstance(acquired, Acquired)
    return Fence(shard, acquired.epoch)


def _write_everything(store: Store) -> None:
    """A nested stack's record and generation, and a queued call, each holding the hidden value."""
    nested = "app/nodes/0"
    store.write_records(
        _fence(store, nested),
        [
            RecordWrite(nested, "server", "OS::Nova::Server", "CREATE_COMPLETE", 1,
                        properties={"user_data": f"password: {SECRET}\n"},
                        attributes={"show": {"x": SECRET}}),
            RecordWrite(nested, "port", "OS::Neutron::Port", "CREATE_COMPLETE", 1, properties={"name": "p"}),
        ],
    )  # fmt: skip
    store.record_generation(nested, commit_sha="a" * 40, definition_digest="d1", inputs={"lineage": [SECRET]})
    store.enqueue_work([NewWorkItem(0, nested, "cloud-call", {"properties": {"admin_pass": SECRET}})])


def _raw_rows(url: str) -> str:
    engine = create_database_engine(url)
    try:
        with engine.connect() as connection:
            return "\n".join(
                repr(row)
                for table in ("resource_records", "stack_generations", "work_items")
                for row in connection.execute(sa.text(f"SELECT * FROM {table}"))
            )
    finally:
        engine.dispose()


def test_no_hidden_value_is_stored_in_clear_and_each_comes_back_as_it_was(
    store: Store, database_url: str
) -> None:
    _write_everything(store)

    raw = _raw_rows(database_url)
    assert SECRET not in raw
    # the server's properties and attributes, the generation's inputs, the call; not the port's
    assert raw.count("$sealed") == 4
    server, port = store.read_records("app/nodes/0")
    assert server.properties == {"user_data": f"password: {SECRET}\n"}
    assert server.attributes == {"show": {"x": SECRET}}
    assert port.properties == {"name": "p"}
    newest = store.newest_generation("app/nodes/0")
    assert newest is not None and newest.inputs == {"lineage": [SECRET]}
    claimed = store.claim_work("w1", 10)
    assert [item.payload for item in claimed] == [{"properties": {"admin_pass": SECRET}}]


def test_a_rotated_key_seals_new_values_and_still_opens_the_old(store: Store, database_url: str) -> None:
    _write_everything(store)
    store.close()

    rotated = _open(database_url, NEW_KEY, OLD_KEY)
    new_only = _open(database_url, NEW_KEY)
    try:
        assert rotated.read_records("app/nodes/0")[0].properties["user_data"].endswith(f"{SECRET}\n")
        with pytest.raises(UnreadableSeal):
            new_only.read_records("app/nodes/0")
        rotated.hide("app", [SECRET])
        rotated.record_generation(
            "app/nodes/0", commit_sha="b" * 40, definition_digest="d2", inputs={"s": SECRET}
        )
        newest = new_only.newest_generation("app/nodes/0")
        assert newest is not None and newest.inputs == {"s": SECRET}
    finally:
        rotated.close()
        new_only.close()


def test_a_queued_call_s_outcome_sent_back_through_the_database_is_sealed_too(
    store: Store, database_url: str
) -> None:
    """The worker that ran a peer's call hands its outcome back through the database: a created
    server's body may hold the hidden value (its user_data), so it is sealed there as well."""
    (item_id,) = store.enqueue_work([NewWorkItem(0, "app/nodes/0", "cloud-call", {"op": "create"})])
    (claimed,) = store.claim_work("w2", 10)
    outcome = {"created": {"id": "s-1", "user_data": f"password: {SECRET}\n"}}
    other = {"created": {"id": "s-2", "name": "plain"}}
    (plain_id,) = store.enqueue_work([NewWorkItem(0, "app/nodes/1", "cloud-call", {"op": "create"})])
    store.claim_work("w2", 10)

    store.complete_work_with_results("w2", {claimed.id: outcome, plain_id: other})

    raw = _raw_rows(database_url)
    assert SECRET not in raw
    finished = {item.id: item.payload for item in store.finished_work([item_id, plain_id])}
    assert finished == {item_id: outcome, plain_id: other}


def test_a_record_keeps_its_writer_s_properties_digest_unless_its_properties_are_sealed(store: Store) -> None:
    store.write_records(
        _fence(store, "app"),
        [
            RecordWrite("app", "server", "OS::Nova::Server", "READY", 1,
                        properties={"admin_pass": SECRET}, properties_digest="d-secret"),
            RecordWrite("app", "port", "OS::Neutron::Port", "READY", 1,
                        properties={"name": "p"}, attributes={"ip": "10.0.0.5"}, properties_digest="d-port"),
        ],
    )  # fmt: skip

    server, port = store.read_compared_records("app")

    assert (server.properties_digest, port.properties_digest) == (None, "d-port")
    assert dict(server.properties) == {"admin_pass": SECRET}  # opened when read
    assert dict(port.properties) == {"name": "p"} and dict(port.attributes) == {"ip": "10.0.0.5"}
    assert [record.logical_name for record in store.read_records("app")] == ["server", "port"]
