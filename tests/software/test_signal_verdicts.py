"""What a signal means, table by table: deployment results and wait condition handles, as Heat reads them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from providers.heat.deployment_signals import REASON_TAIL_CHARS, bounded_text, judge_signal
from providers.heat.derived_config import DeploymentTarget, deployment_entry
from providers.heat.software_records import COMPLETE, FAILED, HandleSignal
from providers.heat.wait_conditions import (
    BadSignal,
    Completed,
    WaitFailed,
    Waiting,
    handle_signal,
    wait_verdict,
)


@pytest.mark.parametrize(
    ("details", "status", "in_reason"),
    [
        ({"deploy_status_code": 0, "deploy_stdout": "ok"}, COMPLETE, "Outputs received"),
        ({}, COMPLETE, "Outputs received"),
        ({"deploy_status_code": "0"}, COMPLETE, "Outputs received"),
        ({"deploy_status_code": 2, "deploy_stderr": "boom"}, FAILED, "non-zero status code: 2"),
        ({"deploy_status_code": 1, "deploy_stderr": "boom"}, FAILED, "deploy_stderr : boom"),
        ({"deploy_status_code": 0, "failed_step": "apt"}, FAILED, "failed_step : apt"),
    ],
)
def test_a_deployment_signal_completes_or_fails_as_heat_decides(
    details: dict[str, Any], status: str, in_reason: str
) -> None:
    outputs: list[dict[str, Any]] = [{"name": "failed_step", "error_output": True}, {"name": "result"}]
    verdict = judge_signal(details, outputs)
    assert verdict.status == status
    assert in_reason in verdict.reason


def test_output_of_any_size_or_encoding_is_kept_as_a_bounded_valid_utf8_tail() -> None:
    huge = "x" * 100_000 + "\udcff" + "end"
    verdict = judge_signal({"deploy_status_code": 1, "deploy_stderr": huge, "deploy_stdout": huge}, [])
    stdout = verdict.outputs["deploy_stdout"]
    assert len(stdout) <= 16_384 and stdout.endswith("end")
    stdout.encode("utf-8")  # valid UTF-8
    assert len(verdict.reason) < REASON_TAIL_CHARS + 200
    assert bounded_text(b"\xff\xfeok", 10) == "\ufffd\ufffdok"


TARGET = DeploymentTarget("d-1", "server-1", "app", "deploy", "TEMP_URL_SIGNAL")
CONFIG = {"group": "script", "config": "echo", "inputs": [{"name": "a", "default": "x"}], "outputs": []}


def test_the_hash_follows_config_and_inputs_but_not_the_action_nor_the_signal_url() -> None:
    _, create = deployment_entry(TARGET, CONFIG, {"a": "1"}, "CREATE", "http://agent/v1/signal/one")
    _, update = deployment_entry(TARGET, CONFIG, {"a": "1"}, "UPDATE", "http://agent/v1/signal/two")
    _, changed = deployment_entry(TARGET, CONFIG, {"a": "2"}, "UPDATE", None)
    _, other_config = deployment_entry(TARGET, {**CONFIG, "config": "echo 2"}, {"a": "1"}, "CREATE", None)
    assert create == update
    assert len({create, changed, other_config}) == 3


def test_declared_inputs_take_their_defaults_and_undeclared_values_follow() -> None:
    entry, _ = deployment_entry(TARGET, CONFIG, {"extra": 3}, "CREATE", None)
    names = [item["name"] for item in entry["inputs"]]
    assert names[:2] == ["a", "extra"]
    assert entry["inputs"][0]["value"] == "x"
    assert names[-1] == "deploy_config_hash"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (None, HandleSignal("1", "SUCCESS", "Signal 1 received", None)),
        ({"data": "d"}, HandleSignal("1", "SUCCESS", "Signal 1 received", "d")),
        (
            {"status": "FAILURE", "reason": "no", "id": "x", "data": 1},
            HandleSignal("x", "FAILURE", "no", 1),
        ),
    ],
)
def test_a_handle_signal_fills_in_what_heat_fills_in(
    body: dict[str, Any] | None, expected: HandleSignal
) -> None:
    assert handle_signal(body, received=0) == expected


def test_a_handle_refuses_an_unknown_status() -> None:
    with pytest.raises(BadSignal):
        handle_signal({"status": "MAYBE"}, received=0)


def test_a_wait_condition_waits_completes_or_fails() -> None:
    ok = HandleSignal("1", "SUCCESS", "r", "a")
    assert wait_verdict([ok], 2, timed_out=False, name="w") == Waiting(1)
    assert wait_verdict(
        [ok, HandleSignal("2", "SUCCESS", "r", None)], 2, timed_out=False, name="w"
    ) == Completed(json.dumps({"1": "a", "2": None}))
    failed = wait_verdict([ok, HandleSignal("2", "FAILURE", "disk", None)], 3, timed_out=False, name="w")
    assert failed == WaitFailed("WaitConditionFailure: resources.w: disk")
    assert wait_verdict([ok], 2, timed_out=True, name="w") == WaitFailed(
        "WaitConditionTimeout: resources.w: 1 of 2 received"
    )
