"""The JSON Schemas: reconciler.yaml errors are located; templates and environments fit theirs."""

from __future__ import annotations

from pathlib import Path

import jsonschema
import pytest
import yaml

from reconciler.templates import MemorySource, TemplateError, load_repository_config, stack_order
from schemas import SCHEMA_NAMES, load_schema

from .test_corpus_conformance import CORPUS, _corpus_files, _kind

SAMPLES = Path(__file__).resolve().parents[2] / "samples-repo"


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_schema_is_a_valid_schema(name: str) -> None:
    jsonschema.Draft202012Validator.check_schema(load_schema(name))


CONFIG_ERRORS = [
    (
        "unknown top-level key",
        "branch: main\nstack: {}\nstacks: {}\n",
        2,
        "Additional properties are not allowed",
    ),
    ("template missing", "stacks:\n  a:\n    environment: []\n", 2, "'template' is a required property"),
    (
        "policy of the wrong type",
        "stacks:\n  a:\n    template: t.yaml\n    prune: maybe\n",
        4,
        "is not of type 'boolean'",
    ),
    (
        "wiring without output",
        "stacks:\n  a:\n    template: t.yaml\n    parameters:\n      p: {from_stack: b}\n",
        5,
        "stacks/a/parameters/p",
    ),
    (
        "wiring to an unknown stack",
        "stacks:\n  a:\n    template: t.yaml\n    parameters:\n      p: {from_stack: b, output: o}\n",
        5,
        "unknown stack 'b'",
    ),
    (
        "wiring in a cycle",
        "stacks:\n  a:\n    template: t\n    parameters: {p: {from_stack: b, output: o}}\n"
        "  b:\n    template: t\n    parameters: {p: {from_stack: a, output: o}}\n",
        1,
        "in a cycle",
    ),
    (
        "a stack with no cloud",
        "defaults: {prune: true}\nstacks:\n  a: {template: t.yaml, cloud: sim}\n  b: {template: t.yaml}\n",
        4,
        "stack b: no cloud: set `cloud:` under `defaults` or the stack",
    ),
]


@pytest.mark.parametrize(
    ("text", "line", "message"), [r[1:] for r in CONFIG_ERRORS], ids=[r[0] for r in CONFIG_ERRORS]
)
def test_repository_config_errors_name_file_and_line(text: str, line: int, message: str) -> None:
    with pytest.raises(TemplateError) as raised:
        load_repository_config(MemorySource({"reconciler.yaml": text}))
    problem = raised.value.problems[0]
    assert (problem.file, problem.line) == ("reconciler.yaml", line)
    assert message in problem.message


def test_stack_order_puts_independent_stacks_in_one_wave() -> None:
    text = (
        "defaults: {cloud: sim}\nstacks:\n  net: {template: n.yaml}\n  dns: {template: d.yaml}\n"
        "  app:\n    template: a.yaml\n"
        "    parameters: {n: {from_stack: net, output: id}, d: {from_stack: dns, output: id}}\n"
    )
    config = load_repository_config(MemorySource({"reconciler.yaml": text}))
    assert stack_order(config) == [["dns", "net"], ["app"]]
    assert config.stacks["net"].observe_interval == 60.0


@pytest.mark.skipif(not CORPUS.is_dir(), reason="the corpus is not present")
def test_every_corpus_template_and_environment_fits_its_schema() -> None:
    validators = {
        kind: jsonschema.Draft202012Validator(load_schema(kind)) for kind in ("template", "environment")
    }
    checked = 0
    for path in _corpus_files():
        kind = _kind(path)
        if kind in validators:
            data = yaml.safe_load((CORPUS / path).read_text(encoding="utf-8"))
            if kind == "template":
                data["heat_template_version"] = str(data["heat_template_version"])
            errors = [error.message for error in validators[kind].iter_errors(data)]
            assert errors == [], path
            checked += 1
    assert checked > 100


def test_samples_fit_their_schemas() -> None:
    jsonschema.validate(yaml.safe_load((SAMPLES / "reconciler.yaml").read_text()), load_schema("reconciler"))
    for path in (SAMPLES / "environments").glob("*.yaml"):
        jsonschema.validate(yaml.safe_load(path.read_text()), load_schema("environment"))
