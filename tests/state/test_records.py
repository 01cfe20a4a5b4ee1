"""Resource records in bulk: ids map to writes in order, are never reused, and large batches round-trip."""

from __future__ import annotations

from typing import Any

import pytest

from state.fencing import Fence
from state.lease_results import Acquired
from state.records import RecordWrite
from state.store import Store


@pytest.fixture
def store(one_shard_store: Store) -> Store:
    return one_shard_store


@pytest.fixture
def fence(store: Store) -> Fence:
    store.ensure_stack("big")
    lease = store.acquire("w1", 0)
    assert isinstance(lease, Acquired)
    return Fence(0, lease.epoch)


def _write(name: str, record_id: int | None = None, **fields: Any) -> RecordWrite:
    values: dict[str, Any] = {"status": "CREATED", "generation": 1, **fields}
    return RecordWrite("big", name, "OS::Nova::Server", record_id=record_id, **values)


def test_new_and_existing_records_mixed_in_one_batch_get_ids_in_the_order_given(
    store: Store, fence: Fence
) -> None:
    first, second = store.write_records(fence, [_write("a"), _write("b")]).record_ids

    ids = store.write_records(
        fence, [_write("c"), _write("b", second, status="UPDATED"), _write("d")]
    ).record_ids

    assert ids[1] == second
    assert len(set(ids) | {first}) == 4
    by_id = {record.id: record for record in store.read_records("big")}
    assert {by_id[record_id].logical_name for record_id in ids} == {"c", "b", "d"}
    assert by_id[second].status == "UPDATED"


def test_a_deleted_record_s_id_is_never_handed_out_again(store: Store, fence: Fence) -> None:
    (newest,) = store.write_records(fence, [_write("a")]).record_ids
    store.write_records(fence, deletes=[newest])

    (after,) = store.write_records(fence, [_write("b")]).record_ids

    assert after > newest


def test_every_field_round_trips(store: Store, fence: Fence) -> None:
    (record_id,) = store.write_records(
        fence,
        [
            _write(
                "server",
                physical_id="uuid-1",
                properties={"name": "web", "networks": [{"port": "p-1"}], "quote": 'it\'s "fine"\n'},
                attributes={"first_address": "10.0.0.5"},
                replaced_by=7,
                attempts=3,
                next_attempt_at=1_800_000_123.5,
                last_error="HTTP 503 from compute",
            )
        ],
    ).record_ids

    (record,) = store.read_records("big")
    assert (record.id, record.stack, record.logical_name, record.type) == (
        record_id,
        "big",
        "server",
        "OS::Nova::Server",
    )
    assert record.properties == {"name": "web", "networks": [{"port": "p-1"}], "quote": 'it\'s "fine"\n'}
    assert record.attributes == {"first_address": "10.0.0.5"}
    assert (record.replaced_by, record.attempts, record.next_attempt_at) == (7, 3, 1_800_000_123.5)
    assert record.last_error == "HTTP 503 from compute"


def test_ten_thousand_records_write_update_and_delete_in_single_batches(store: Store, fence: Fence) -> None:
    ids = store.write_records(fence, [_write(f"server_{n}") for n in range(10_000)]).record_ids
    store.write_records(
        fence, [_write(f"server_{n}", record_id, status="UPDATED") for n, record_id in enumerate(ids)]
    )
    written = store.write_records(fence, deletes=ids[:5_000] + ids[-1:])

    records = store.read_records("big")
    assert written.deleted == 5_001
    assert len(records) == 4_999
    assert {record.status for record in records} == {"UPDATED"}


def test_json_text_encoded_by_the_writer_is_what_is_stored(store: Store, fence: Fence) -> None:
    """A writer that keeps the JSON of unchanged values hands the text over; it is not encoded again."""
    (record_id,) = store.write_records(
        fence,
        [
            _write(
                "server",
                properties={"name": "web"},
                attributes={"first_address": "10.0.0.5"},
                properties_json='{"name":"web"}',
                attributes_json='{"first_address":"10.0.0.5","networks":{"private":["10.0.0.5"]}}',
            )
        ],
    ).record_ids

    (record,) = store.read_records("big")
    assert record.id == record_id
    assert record.properties == {"name": "web"}
    assert record.attributes == {"first_address": "10.0.0.5", "networks": {"private": ["10.0.0.5"]}}
