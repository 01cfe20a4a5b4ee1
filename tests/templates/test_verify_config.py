"""`verify:` in reconciler.yaml: each mistake names the file, the key and what was expected."""

from __future__ import annotations

import pytest

from reconciler.templates import MemorySource, TemplateError, load_repository_config
from reconciler.templates.repository_config import VerifyConfig

STACKS = "stacks:\n  a: {template: t.yaml, cloud: sim}\n"
FILES = {"t.yaml": "heat_template_version: 2018-08-31\n", "keys/allowed_signers": "", "keys/ops.asc": ""}

VERIFY_ERRORS = [
    (
        "a file not in the commit",
        "verify: {allowed_signers: keys/nope}\n",
        1,
        "verify.allowed_signers: expected a file of the repository, but 'keys/nope' is not in this commit",
    ),
    (
        "a keyring not in the commit",
        "verify:\n  gpg_keyring: keys/missing.asc\n",
        2,
        "verify.gpg_keyring: expected a file of the repository, but 'keys/missing.asc' is not in this commit",
    ),
    (
        "an unknown key",
        "verify: {signers: keys/allowed_signers}\n",
        1,
        "verify: Additional properties are not allowed ('signers' was unexpected) "
        "(expected: allowed_signers, gpg_keyring)",
    ),
    (
        "an empty block",
        "verify: {}\n",
        1,
        "verify: {} should be non-empty (expected: allowed_signers, gpg_keyring)",
    ),
    ("not a path", "verify: {allowed_signers: 3}\n", 1, "verify/allowed_signers: 3 is not of type 'string'"),
]


@pytest.mark.parametrize(
    ("text", "line", "message"), [r[1:] for r in VERIFY_ERRORS], ids=[r[0] for r in VERIFY_ERRORS]
)
def test_verify_errors_name_the_file_the_key_and_what_was_expected(
    text: str, line: int, message: str
) -> None:
    with pytest.raises(TemplateError) as raised:
        load_repository_config(MemorySource({**FILES, "reconciler.yaml": text + STACKS}))

    problem = raised.value.problems[0]
    assert (problem.file, problem.line) == ("reconciler.yaml", line)
    assert problem.message == message


def test_verify_names_the_signers_and_the_keyring() -> None:
    text = "verify: {allowed_signers: keys/allowed_signers, gpg_keyring: keys/ops.asc}\n" + STACKS

    config = load_repository_config(MemorySource({**FILES, "reconciler.yaml": text}))

    assert config.verify == VerifyConfig(allowed_signers="keys/allowed_signers", gpg_keyring="keys/ops.asc")


def test_no_verify_block_means_no_verification() -> None:
    assert load_repository_config(MemorySource({**FILES, "reconciler.yaml": STACKS})).verify is None
