"""A commit that does not touch a template parses and checks nothing of it again: parsed documents
and checked models are kept by git blob id, give the definition the same digest, and are not changed
by those who use them."""

from __future__ import annotations

from pathlib import Path
from types import MappingProxyType
from typing import Any

import git
import pytest

from reconciler.source.commit_files import CommitFileSource
from reconciler.source.revisions import StackRevision, load_revision
from reconciler.templates import DocumentCache, Limits, NoCloud, StackSpec
from reconciler.templates.documents import load_document
from tests.source.git_repos import commit_files, init_repository

TEMPLATE = "stacks/app/template.yaml"
NESTED = "stacks/app/server.yaml"
ENVIRONMENT = "environments/common.yaml"


def _template(count: int) -> str:
    resources = "".join(
        f"  r{index}:\n    type: server.yaml\n    properties:\n"
        f"      name: {{list_join: ['-', [{{get_param: prefix}}, r{index}]]}}\n"
        f"      tags: [a, {{get_param: prefix}}]\n"
        for index in range(count)
    )
    return (
        "heat_template_version: 2018-08-31\n"
        "parameters:\n  prefix: {type: string, default: app}\n"
        "  settings: {type: json, default: {size: 1, zones: [a, b]}}\n"
        f"resources:\n{resources}"
        "outputs:\n  names: {value: {get_attr: [r0, name]}}\n"
        "  settings: {value: {get_param: settings}}\n"
    )


SERVER = (
    "heat_template_version: 2018-08-31\n"
    "parameters:\n  name: {type: string}\n  tags: {type: comma_delimited_list, default: []}\n"
    "resources:\n  value: {type: OS::Heat::Value, properties: {value: {get_param: name}}}\n"
    "outputs:\n  name: {value: {get_attr: [value, value]}}\n"
)


def _spec(prefix: str = "app") -> StackSpec:
    return StackSpec(
        name="app",
        template=TEMPLATE,
        environment=(ENVIRONMENT,),
        parameters=MappingProxyType({"prefix": prefix}),
        cloud="sim",
        auto_apply=True,
        self_heal=True,
        prune=True,
        observe_interval=60.0,
    )


def _no_outputs(_stack: str) -> None:
    return None


@pytest.fixture
def repo(tmp_path: Path) -> git.Repo:
    repository = init_repository(tmp_path / "repo")
    commit_files(
        repository,
        {TEMPLATE: _template(20), NESTED: SERVER, ENVIRONMENT: "parameter_defaults: {}\n"},
        "first",
    )
    return repository


def _load(repo: git.Repo, commit: str, documents: DocumentCache | None, prefix: str = "app") -> StackRevision:
    outcome = load_revision(CommitFileSource(repo, commit), _spec(prefix), _no_outputs, documents)
    assert isinstance(outcome, StackRevision), outcome
    return outcome


def test_a_commit_touching_only_an_environment_parses_no_template_again(repo: git.Repo) -> None:
    documents = DocumentCache()
    _load(repo, repo.head.commit.hexsha, documents)
    assert (documents.parses, documents.models_built) == (2, 2)  # the template and its nested one
    second = commit_files(repo, {ENVIRONMENT: "parameter_defaults: {prefix: other}\n"})
    _load(repo, second, documents)
    assert (documents.parses, documents.models_built) == (2, 2)
    assert documents.hits == 2


def test_new_parameters_for_the_same_files_parse_nothing_again(repo: git.Repo) -> None:
    documents = DocumentCache()
    commit = repo.head.commit.hexsha
    first = _load(repo, commit, documents)
    again = _load(repo, commit, documents, prefix="renamed")
    assert documents.parses == 2
    assert first.definition.parameters["prefix"] == "app"
    assert again.definition.parameters["prefix"] == "renamed"


def test_a_changed_template_is_parsed_and_its_nested_template_is_not(repo: git.Repo) -> None:
    documents = DocumentCache()
    _load(repo, repo.head.commit.hexsha, documents)
    second = commit_files(repo, {TEMPLATE: _template(21)})
    revision = _load(repo, second, documents)
    assert (documents.parses, documents.models_built) == (3, 3)
    assert "r20" in revision.definition.resources


def test_a_definition_loaded_through_the_cache_is_the_one_loaded_without_it(repo: git.Repo) -> None:
    documents = DocumentCache()
    commit = repo.head.commit.hexsha
    _load(repo, commit, documents)
    cached = _load(repo, commit, documents).definition
    fresh = _load(repo, commit, None).definition
    assert documents.hits == 2
    assert cached.digest() == fresh.digest()
    assert cached.resources == fresh.resources
    assert cached.input_files == fresh.input_files
    assert cached.warnings == fresh.warnings


def test_using_a_cached_definition_leaves_the_cached_document_as_parsed(repo: git.Repo) -> None:
    """Resolved properties and outputs are built for their caller: changing them changes no document
    (the definition itself, shared by every pass, is read only)."""
    documents = DocumentCache()
    commit = repo.head.commit.hexsha
    files = CommitFileSource(repo, commit)
    definition = _load(repo, commit, documents).definition
    for name in definition.resources:
        _scramble(definition.resolve_properties(name, NoCloud()))
        nested = definition.nested(name, {"name": name, "tags": ["x"]})
        assert nested is not None
        _scramble(nested.output_without_cloud("name"))
    _scramble(definition.output_without_cloud("settings"))
    _load(repo, commit, documents)
    for path in (TEMPLATE, NESTED):
        blob = files.blob_id(path)
        assert blob is not None
        held = documents.get(blob, Limits())
        assert held is not None
        assert held.data == load_document(path, files.read(path), Limits()).data


def _scramble(value: Any) -> None:
    """Change every container inside `value` the way a careless caller would."""
    if isinstance(value, dict):
        for item in list(value.values()):
            _scramble(item)
        value["scrambled"] = True
    elif isinstance(value, list):
        for item in list(value):
            _scramble(item)
        value.append("scrambled")
