"""`load_stack`: read a template, its environments and everything they pull in, check it all,
and bind it to parameter values.

Everything is read through the `FileSource` handed in, once per file; template models are cached
per file, so nested templates used many times are checked once. Nested template resources are
followed eagerly at load time (to find every file, recursion and excessive depth); a group's
members are not: the member template is checked once, the members are produced only on demand.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.templates.binding import Binding, bind
from reconciler.templates.block_parsing import BlockKeeper
from reconciler.templates.definition import StackDefinition
from reconciler.templates.document_cache import DocumentCache, parsed_file
from reconciler.templates.documents import Document, load_document
from reconciler.templates.environment import Environment, merge_environment
from reconciler.templates.errors import Problem, TemplateError
from reconciler.templates.evaluation import UNKNOWN
from reconciler.templates.file_source import FileSource, IdentifiedFileSource, relative_to
from reconciler.templates.limits import Limits
from reconciler.templates.load_images import ImageUse
from reconciler.templates.repository_config import StackOutputRef
from reconciler.templates.resource_checks import resource_problems
from reconciler.templates.reused_resources import ReusedResources
from reconciler.templates.stack_identity import stack_pseudo_parameters
from reconciler.templates.template_model import TemplateModel, build_model


class LoadContext:
    """The files, environment and cached models shared by one stack and all its nested stacks."""

    def __init__(
        self,
        files: FileSource,
        limits: Limits,
        environment: Environment,
        documents: DocumentCache | None = None,
        blocks: BlockKeeper | None = None,
    ) -> None:
        self.files = files
        self.blocks = blocks if blocks is not None or documents is None else documents.blocks
        self.limits = limits
        self.environment = environment
        self.documents = documents
        # the files' content ids, when they have some and parsed documents are kept by them
        self._identified = (
            files if documents is not None and isinstance(files, IdentifiedFileSource) else None
        )
        self._contents: dict[str, bytes] = {}
        self._documents: dict[str, Document] = {}
        self._digests: dict[str, str] = {}  # file -> sha256 of its bytes, for those parsed through the cache
        self._blob_ids: dict[str, str] = {}  # file -> its content id, for those found through the cache
        self._models: dict[str, TemplateModel] = {}
        self._file_texts: dict[str, dict[str, str]] = {}  # model path -> get_file reference -> text
        self._uses: dict[str, set[str]] = {}  # file -> the files it pulls in
        self.checked: set[str] = set()  # models whose nested tree was checked

    def read(self, path: str) -> bytes:
        """A file's bytes, read once."""
        if path not in self._contents:
            self._contents[path] = self.files.read(path)
        return self._contents[path]

    def document(self, path: str) -> Document:
        """A file parsed as YAML or JSON, once: found by its content id when it was parsed before."""
        if path not in self._documents:
            self._documents[path] = self._parsed(path)
        return self._documents[path]

    def _parsed(self, path: str) -> Document:
        blob_id = self._identified.blob_id(path) if self._identified is not None else None
        if self.documents is None or blob_id is None:
            return load_document(path, self.read(path), self.limits, self.blocks)
        parsed = self.documents.get(blob_id, self.limits)
        if parsed is None:
            content = self.read(path)
            document = load_document(path, content, self.limits, self.blocks)
            parsed = parsed_file(
                content, document.text, document.data, document.resource_digests, document.skeleton_digest
            )
            self.documents.put(blob_id, self.limits, parsed)
        self._digests[path] = parsed.content_digest
        self._blob_ids[path] = blob_id
        return Document(path, parsed.text, parsed.data, None, parsed.resource_digests, parsed.skeleton_digest)

    def model(self, path: str) -> TemplateModel:
        """The checked model of the template file at `path`."""
        if path not in self._models:
            self._models[path] = self._build(self._checked_model(path))
        return self._models[path]

    def model_reusing(self, path: str, reused: frozenset[str]) -> TemplateModel:
        """The model of the template at `path` with the resources `reused` neither parsed nor
        checked (never kept with its document: it is this load's alone)."""
        if path not in self._models:
            self._models[path] = self._build(build_model(self.document(path), reused))
        return self._models[path]

    def _checked_model(self, path: str) -> TemplateModel:
        """The template at `path` checked, or the model checked before from the same content."""
        document = self.document(path)
        blob_id = self._blob_ids.get(path)
        if self.documents is None or blob_id is None:
            return build_model(document)
        model = self.documents.model(blob_id, self.limits, path)
        if model is None:
            model = build_model(document)
            self.documents.keep_model(blob_id, self.limits, path, model)
        return model

    def model_from_text(self, path: str, text: str) -> TemplateModel:
        """The checked model of a template given as text (OS::Heat::Stack's `template`)."""
        if path not in self._models:
            document = load_document(path, text.encode("utf-8"), self.limits)
            self._models[path] = self._build(build_model(document))
        return self._models[path]

    def _build(self, model: TemplateModel) -> TemplateModel:
        """`model` with the files it pulls in by get_file read from this tree."""
        document = model.document
        texts: dict[str, str] = {}
        uses = self._uses.setdefault(model.path, set())
        problems: list[Problem] = []
        for reference, where in model.file_references.items():
            try:
                target = relative_to(model.path, reference)
                texts[reference] = self.read(target).decode("utf-8")
                uses.add(target)
            except TemplateError as error:
                problems.extend(
                    document.problem(where, f"get_file {reference!r}: {problem.message}")
                    for problem in error.problems
                )
            except UnicodeDecodeError:
                problems.append(
                    document.problem(where, f"get_file {reference!r}: the file is not UTF-8 text")
                )
        if problems:
            raise TemplateError(problems)
        self._file_texts[model.path] = texts
        return model

    def warnings_of(self, paths: Sequence[str]) -> tuple[Problem, ...]:
        """The warnings found in the templates at `paths` (files that are not templates have none)."""
        return tuple(
            warning for path in paths if path in self._models for warning in self._models[path].warnings
        )

    def files_of(self, path: str) -> Mapping[str, str]:
        """The get_file contents of the template at `path`, by reference as written."""
        return self._file_texts.get(path, {})

    def note_use(self, user: str, used: str) -> None:
        """Record that file `user` pulls in file `used` (for input_files)."""
        self._uses.setdefault(user, set()).add(used)

    def closure(self, path: str) -> frozenset[str]:
        """`path` and every file it pulls in, transitively."""
        seen: set[str] = set()
        pending = [path]
        while pending:
            current = pending.pop()
            if current in seen:
                continue
            seen.add(current)
            pending.extend(self._uses.get(current, ()))
        return frozenset(item for item in seen if "#" not in item)

    def file_digests(self, paths: frozenset[str]) -> dict[str, str]:
        """A content hash per file read (for a definition's digest)."""
        return {
            path: self._digest(path)
            for path in sorted(paths)
            if path in self._contents or path in self._digests
        }

    def _digest(self, path: str) -> str:
        if path not in self._digests:
            self._digests[path] = hashlib.sha256(self._contents[path]).hexdigest()
        return self._digests[path]


def load_environments(
    files: FileSource, paths: Sequence[str], limits: Limits
) -> tuple[Environment, list[str]]:
    """The environments at `paths`, merged in order, and the files read."""
    environment = Environment()
    for path in paths:
        merge_environment(environment, load_document(path, files.read(path), limits))
    return environment, list(paths)


def load_stack(
    files: FileSource,
    spec_or_template_path: Any,
    environments: Sequence[str] = (),
    parameters: Mapping[str, Any] | None = None,
    *,
    limits: Limits | None = None,
    stack_name: str | None = None,
    pseudo_parameters: Mapping[str, str] | None = None,
    documents: DocumentCache | None = None,
    blocks: BlockKeeper | None = None,
) -> StackDefinition:
    """The stack definition of a template (or of a `StackSpec`) with its environments and values.

    Parameter values must already be plain values (StackOutputRefs resolved by the caller); a
    `StackSpec` brings its own template, environments, parameters and name. `pseudo_parameters`
    gives OS::stack_id and OS::project_id when the caller knows them (OS::stack_name comes from
    `stack_name`); a value needing an unknown one raises `Unresolved` with that name. `documents`
    keeps parsed templates by content id across loads, when `files` names content ids; `blocks`
    keeps a YAML template's resources parsed apart, so a template changed in one resource parses
    that resource alone.
    """
    load = functools.partial(
        _load_stack,
        files,
        spec_or_template_path,
        environments=environments,
        parameters=parameters,
        limits=limits,
        stack_name=stack_name,
        pseudo_parameters=pseudo_parameters or {},
        documents=documents,
        blocks=blocks,
    )
    try:
        return load()
    except _ReusingLoadRefused:
        return load(reuse=False)  # every problem as a full load finds them, in its order


class _ReusingLoadRefused(Exception):
    """A load that reused its image's yields found a problem: the caller loads again in full."""


def _load_stack(
    files: FileSource,
    spec_or_template_path: Any,
    *,
    environments: Sequence[str],
    parameters: Mapping[str, Any] | None,
    limits: Limits | None,
    stack_name: str | None,
    pseudo_parameters: Mapping[str, str],
    documents: DocumentCache | None,
    blocks: BlockKeeper | None,
    reuse: bool = True,
) -> StackDefinition:
    template_path, environments, values, stack_name, spec_limits = _inputs(
        spec_or_template_path, environments, parameters, stack_name
    )
    limits = limits or spec_limits
    environment, _ = load_environments(files, environments, limits)
    context = LoadContext(files, limits, environment, documents, blocks)
    for path in environments:
        context.read(path)
        context.note_use(template_path, path)
    pseudo = {**(stack_pseudo_parameters(stack_name) if stack_name else {}), **pseudo_parameters}
    images = (
        ImageUse(context, template_path, environments, values, pseudo)
        if reuse and context.blocks is not None
        else None
    )
    reused = images.reusable() if images is not None else None
    try:
        definition = _definition(
            context, template_path, environments=environments, values=values, pseudo=pseudo, reused=reused
        )
    except TemplateError:
        if reused is None:
            raise
        raise _ReusingLoadRefused from None
    if images is not None:
        images.keep(definition)
    return definition


def _definition(
    context: LoadContext,
    template_path: str,
    *,
    environments: Sequence[str],
    values: Mapping[str, Any],
    pseudo: Mapping[str, str],
    reused: ReusedResources | None,
) -> StackDefinition:
    """The checked stack definition, reusing the yields of `reused`; `TemplateError` on a problem."""
    from reconciler.templates.nested_checks import check_nested_tree

    names = frozenset(reused.entries) if reused is not None else frozenset()
    model = context.model_reusing(template_path, names) if names else context.model(template_path)
    definition = bind(model, context, Binding(values=dict(values), pseudo=pseudo), reused)
    definition.identify_by_inputs(
        {"template": template_path, "environments": list(environments), "values": values, "pseudo": pseudo}
    )
    check_nested_tree(definition, chain=(template_path,), depth=0)
    problems = definition.problems_without_cloud() + resource_problems(definition, names)
    if problems:
        raise TemplateError(problems)
    return definition


def _inputs(
    spec_or_template_path: Any,
    environments: Sequence[str],
    parameters: Mapping[str, Any] | None,
    stack_name: str | None,
) -> tuple[str, tuple[str, ...], Mapping[str, Any], str | None, Limits]:
    if isinstance(spec_or_template_path, str):
        return spec_or_template_path, tuple(environments), dict(parameters or {}), stack_name, Limits()
    spec = spec_or_template_path
    # Wiring not resolved by the caller is unknown here: enough to validate, not to apply.
    values = {
        key: UNKNOWN if isinstance(value, StackOutputRef) else value for key, value in spec.parameters.items()
    }
    values.update(parameters or {})
    environments = tuple(environments) or tuple(spec.environment)
    return spec.template, environments, values, stack_name or spec.name, spec.limits
