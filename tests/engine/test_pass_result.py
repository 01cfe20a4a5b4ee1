"""The result of a stack's pass, and how the results of one engine pass's rounds add up."""

from __future__ import annotations

from reconciler.engine.pass_result import PassResult, RemoveChild, StatusWrite
from reconciler.engine.resource_state import RecordStatus, ResourceState
from reconciler.engine.stack_status import StackStatus


def _record(name: str) -> ResourceState:
    return ResourceState(name, "OS::Heat::None", RecordStatus.READY, 1)


def test_a_later_round_adds_its_writes_and_its_status_wins() -> None:
    server, port = _record("server"), _record("port")
    first = PassResult(
        upserts=(server,),
        deleted_record_ids=(7,),
        status=StatusWrite(StackStatus.PROGRESSING, (), 2),
        superseded_generations=(1,),
    )
    second = PassResult(
        upserts=(server, port),
        deleted_record_ids=(8,),
        status=StatusWrite(StackStatus.CONVERGED, (), 2),
        outputs={"ip": "10.0.0.5"},
        superseded_generations=(1,),
    )

    merged = first.then(second)

    assert merged.upserts == (server, port)  # a record written twice in a pass is written once
    assert merged.deleted_record_ids == (7, 8)
    assert merged.status == StatusWrite(StackStatus.CONVERGED, (), 2)
    assert merged.outputs == {"ip": "10.0.0.5"}
    assert merged.superseded_generations == (1,)
    assert merged.converged_again


def test_a_later_round_with_nothing_new_keeps_what_the_earlier_one_learned() -> None:
    first = PassResult(status=StatusWrite(StackStatus.FAILED, ("server: quota",), 3), outputs={"ip": None})

    merged = first.then(PassResult())

    assert merged.status == StatusWrite(StackStatus.FAILED, ("server: quota",), 3)
    assert merged.outputs == {"ip": None}
    assert not merged.writes_records
    assert not merged.converged_again


def test_child_requests_answered_in_an_earlier_round_are_not_asked_again() -> None:
    asked = PassResult(child_requests=(RemoveChild("app/old"),))
    again = PassResult(child_requests=(RemoveChild("app/other"),))

    assert asked.then(PassResult()).child_requests == ()
    assert asked.then(again).child_requests == (RemoveChild("app/other"),)
