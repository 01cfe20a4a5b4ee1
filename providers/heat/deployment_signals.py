"""What a deployment's signal means, as Heat decides it: completed, or failed with a reason.

The body is what heat-config-notify sends: the hook's `deploy_stdout`, `deploy_stderr`,
`deploy_status_code` and the config's declared outputs. A status code other than 0 fails the
deployment, and so does any output the config marks `error_output`. Output text of any size or
encoding is cut to a bounded tail of valid UTF-8 before it is kept or shown.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from providers.heat.software_records import COMPLETE, FAILED

DEPLOY_ATTRIBUTES = ("deploy_stdout", "deploy_stderr", "deploy_status_code")
KEPT_OUTPUT_CHARS = 16_384  # of each output kept as an attribute
REASON_TAIL_CHARS = 1_024  # of stderr quoted in a failure's reason


@dataclass(frozen=True)
class DeploymentVerdict:
    status: str
    reason: str
    outputs: Mapping[str, Any]


def bounded_text(value: Any, limit: int) -> Any:
    """Strings cut to their last `limit` characters, bytes decoded: invalid sequences (lone
    surrogates a JSON body can carry included) and NUL, which PostgreSQL's text refuses, replaced."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    if isinstance(value, str):
        tail = value[-limit:].encode("utf-8", errors="replace").decode("utf-8")
        return tail.replace("\x00", "\ufffd")
    return value


def judge_signal(
    details: Mapping[str, Any], declared_outputs: Sequence[Mapping[str, Any]]
) -> DeploymentVerdict:
    """Heat's reading of a deployment signal (its status, reason and output values)."""
    outputs: dict[str, Any] = {}
    reasons: list[str] = []
    status_code = details.get("deploy_status_code")
    if status_code not in (None, "", 0, "0"):
        reasons.append(f"deploy_status_code : Deployment exited with non-zero status code: {status_code}")
    for output in declared_outputs:
        name = str(output.get("name"))
        if name in details:
            outputs[name] = bounded_text(details[name], KEPT_OUTPUT_CHARS)
            if output.get("error_output"):
                reasons.append(f"{name} : {bounded_text(details[name], REASON_TAIL_CHARS)}")
    for name in DEPLOY_ATTRIBUTES:
        outputs[name] = bounded_text(details.get(name), KEPT_OUTPUT_CHARS)
    if not reasons:
        return DeploymentVerdict(COMPLETE, "Outputs received", outputs)
    stderr = bounded_text(details.get("deploy_stderr"), REASON_TAIL_CHARS)
    if stderr:
        reasons.append(f"deploy_stderr : {stderr}")
    return DeploymentVerdict(FAILED, ", ".join(reasons), outputs)
