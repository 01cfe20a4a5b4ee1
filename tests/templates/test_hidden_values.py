"""Hidden parameter values are redacted from every text a note carries."""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates.hidden_values import REDACTED, hidden_values, redact

PARAMETERS: dict[str, Any] = {
    "admin_password": "s3cret-pass",
    "keys": ["key-one", "key-two"],
    "creds": {"user": "admin", "token": "tok-123456"},
    "size": 1000,
    "flag": True,
    "pin": "42",
    "visible": "s3cret-pass-not-hidden-but-equal",
}


@pytest.mark.parametrize(
    ("hidden", "expected"),
    [
        (["admin_password"], {"s3cret-pass"}),
        (["keys"], {"key-one", "key-two"}),
        (["creds"], {"admin", "tok-123456"}),
        (["size"], {"1000"}),
        (["flag", "pin"], set()),  # booleans and very short values are not redacted
        (["missing"], set()),
    ],
)
def test_hidden_values_collect_every_text_of_a_hidden_parameter(
    hidden: list[str], expected: set[str]
) -> None:
    assert hidden_values(PARAMETERS, hidden) == expected


@pytest.mark.parametrize(
    ("text", "secrets", "expected"),
    [
        ("Invalid password 's3cret-pass'", {"s3cret-pass"}, f"Invalid password '{REDACTED}'"),
        ("abcdef and abc", {"abc", "abcdef"}, f"{REDACTED} and {REDACTED}"),
        ("nothing to hide", {"s3cret"}, "nothing to hide"),
    ],
)
def test_redact_replaces_every_occurrence(text: str, secrets: set[str], expected: str) -> None:
    assert redact(text, secrets) == expected
