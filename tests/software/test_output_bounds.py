"""Script output of any size or encoding ends as a bounded tail of valid UTF-8 in outputs and reasons.

Given a script that prints 10 MB and then binary garbage (NUL bytes, invalid sequences, a
multi-byte character cut by the bound) on stdout and stderr and exits 1, when the simulated
cloud's agent runs it, then the deployment fails with a reason holding a short, valid tail of its
stderr, its outputs hold at most the kept tail, and the database (SQLite and PostgreSQL) keeps them.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from providers.heat.deployment_signals import KEPT_OUTPUT_CHARS, REASON_TAIL_CHARS, bounded_text
from reconciler.agent.output_tails import TAIL_BYTES, text_tail
from reconciler.engine import StackStatus
from tests.software.software_world import SoftwareWorld
from tests.software.test_sim_agents import agents_for, converge_in_real_time

GARBAGE = bytes(range(256)) * 4 + b"\x00\xff\xfe\xc3" + "é€𝄞".encode()

NOISY = """
heat_template_version: 2018-08-31
parameters:
  garbage: {type: string}
resources:
  config:
    type: OS::Heat::SoftwareConfig
    properties:
      group: script
      inputs: [{name: garbage}]
      outputs: [{name: noise}]
      config: |
        #!/bin/sh
        head -c 10000000 /dev/zero | tr '\\0' 'x'
        cat "$garbage"
        head -c 10000000 /dev/zero | tr '\\0' 'y' >&2
        cat "$garbage" >&2
        cat "$garbage" > "$heat_outputs_path.noise"
        exit 1
  server:
    type: OS::Nova::Server
    properties:
      image: cirros-0.6.2-x86_64-disk
      flavor: m1.small
      user_data_format: SOFTWARE_CONFIG
  deployment:
    type: OS::Heat::SoftwareDeployment
    properties:
      config: {get_resource: config}
      server: {get_resource: server}
      input_values: {garbage: {get_param: garbage}}
"""


def valid_text(text: str) -> bool:
    return "\x00" not in text and text.encode("utf-8").decode("utf-8") == text


@pytest.mark.parametrize(
    "raw",
    [b"", b"plain", GARBAGE, b"x" * 10_000_000 + GARBAGE, "€".encode() * 10_000, b"\x00" * 100_000],
    ids=["empty", "plain", "garbage", "10 MB then garbage", "cut inside characters", "NUL"],
)
def test_a_tail_is_bounded_valid_utf8_without_nul(raw: bytes) -> None:
    tail = text_tail(raw)
    assert valid_text(tail)
    assert len(tail.encode("utf-8")) <= 3 * TAIL_BYTES  # a replaced byte is three bytes of U+FFFD
    if raw.isascii() and b"\x00" not in raw:
        assert tail == raw[-TAIL_BYTES:].decode()


@pytest.mark.parametrize("value", ["\ud800 lone surrogate", "nul \x00 inside", "x" * 100_000, GARBAGE])
def test_what_the_daemon_keeps_of_a_signal_is_bounded_valid_utf8(value: str | bytes) -> None:
    kept = bounded_text(value, KEPT_OUTPUT_CHARS)
    assert valid_text(kept) and len(kept) <= KEPT_OUTPUT_CHARS


@pytest.fixture
def world(tmp_path: Path, database_url: str) -> Iterator[SoftwareWorld]:
    world = SoftwareWorld(tmp_path, database_url)
    world.commit({"scripted.yaml": NOISY})
    yield world
    world.close()


def test_ten_megabytes_of_output_and_binary_garbage_end_as_bounded_valid_text(
    world: SoftwareWorld, tmp_path: Path
) -> None:
    garbage = tmp_path / "garbage"
    garbage.write_bytes(GARBAGE + os.urandom(4096) + GARBAGE)
    agents = agents_for(world, tmp_path / "agents")
    try:
        world.submit("scripted", "scripted.yaml", {"garbage": str(garbage)})
        assert converge_in_real_time(world, "scripted") is StackStatus.FAILED
    finally:
        agents.stop()
    report = world.engine.converge(("scripted",), world.clock.now())["scripted"]
    (failure,) = report.failures
    assert "non-zero status code: 1" in failure.reason
    assert valid_text(failure.reason) and len(failure.reason) < 4 * REASON_TAIL_CHARS
    deployment = world.records("scripted")["deployment"]
    for name in ("deploy_stdout", "deploy_stderr", "noise"):
        kept = deployment.attributes[name]
        assert valid_text(kept) and len(kept) <= KEPT_OUTPUT_CHARS, name
    assert deployment.attributes["deploy_stdout"].endswith("é€𝄞")
