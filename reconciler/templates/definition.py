"""The immutable result of loading a stack: what it wants, and how to resolve it against a cloud.

A `StackDefinition` holds resources with their effective types and still-unresolved properties,
the dependency graph, evaluated conditions and outputs. Resolving asks an `AttributeSource` for
live ids and attributes; a value not known yet raises `Unresolved`, so the engine acts on a
resource only when what it needs is ready. Nested stacks (template resources, groups, chains,
OS::Heat::Stack) are built on demand by `nested()`, from the resource's resolved properties; a
group's members are produced lazily, so a million members cost nothing until iterated.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from reconciler.templates.errors import FunctionError, Problem, ResolutionError
from reconciler.templates.evaluation import OMITTED, UNKNOWN, AttributeSource, Evaluation, NoCloud
from reconciler.templates.hidden_values import hidden_values, redact
from reconciler.templates.nodes import Parser, References
from reconciler.templates.parameters import ParameterSchema
from reconciler.templates.property_translation import translated_properties
from reconciler.templates.type_fingerprints import types_digest

if TYPE_CHECKING:
    from reconciler.templates.loading import LoadContext
    from reconciler.templates.type_uses import TypeUse


@dataclass(frozen=True)
class ResourceDefinition:
    """One resource as the stack wants it."""

    name: str
    type: str  # the effective type, after the resource registry
    properties: Any  # as written: may hold unresolved functions
    depends_on: frozenset[str]  # explicit depends_on plus get_resource/get_attr targets
    metadata: Any = None
    deletion_policy: Any = "Delete"
    update_policy: Any = None
    external_id: Any = None
    # "template" | "group" | "autoscaling" | "instancegroup" | "chain" | "stack"
    nested_kind: str | None = None
    template_file: str | None = None  # the nested template (repository path) of a template resource
    written_type: str | None = None  # the type as written, before the registry


def resource_definition(
    *,
    name: str,
    type: str,
    properties: Any,
    depends_on: frozenset[str],
    metadata: Any,
    deletion_policy: Any,
    update_policy: Any,
    external_id: Any,
    nested_kind: str | None,
    template_file: str | None,
    written_type: str | None,
) -> ResourceDefinition:
    """The `ResourceDefinition` of these fields, made without the frozen dataclass's __init__,
    whose object.__setattr__ per field is a large share of binding a large template. Every field
    must be given (a test holds this to the dataclass's fields)."""
    definition = object.__new__(ResourceDefinition)
    fields = {
        "name": name,
        "type": type,
        "properties": properties,
        "depends_on": depends_on,
        "metadata": metadata,
        "deletion_policy": deletion_policy,
        "update_policy": update_policy,
        "external_id": external_id,
        "nested_kind": nested_kind,
        "template_file": template_file,
        "written_type": written_type,
    }
    object.__setattr__(definition, "__dict__", fields)
    return definition


@dataclass(frozen=True)
class OutputDefinition:
    """One output: its value as written, and whether its condition holds."""

    name: str
    value: Any
    description: str | None = None
    active: bool = True


class StackDefinition:
    """A stack's desired state. Immutable: every view is read-only."""

    def __init__(
        self,
        *,
        template_path: str,
        parameters: Mapping[str, Any],
        hidden_parameters: frozenset[str],
        resources: Mapping[str, ResourceDefinition],
        outputs: Mapping[str, OutputDefinition],
        warnings: tuple[Problem, ...],
        input_files: frozenset[str] | None,
        graph: Mapping[str, frozenset[str]],
        evaluation: Evaluation,
        parsed_properties: Mapping[str, Any],
        parsed_outputs: Mapping[str, Any],
        context: LoadContext,
        missing_parameters: frozenset[str] = frozenset(),
        parameter_schemas: Mapping[str, ParameterSchema] | None = None,
        pseudo_parameters: Mapping[str, str] | None = None,
        needs_evaluation: frozenset[str] | None = None,
        identity: Any = None,
        resize: Callable[[int], StackDefinition] | None = None,
    ) -> None:
        self.template_path = template_path
        self._resize = resize  # a group's nested stack: the same group with another member count
        self.parameters = MappingProxyType(dict(parameters))
        self.hidden_parameters = hidden_parameters
        self.missing_parameters = missing_parameters
        # Each parameter's schema: immutable, label, tags, and the custom constraints providers check.
        self.parameter_schemas = MappingProxyType(dict(parameter_schemas or {}))
        # The values OS::stack_name, OS::stack_id and OS::project_id were given (the rest unknown).
        self.pseudo_parameters = MappingProxyType(dict(pseudo_parameters or {}))
        self.resources = resources if not isinstance(resources, dict) else MappingProxyType(resources)
        self.outputs = MappingProxyType(dict(outputs))
        self._own_warnings = warnings
        self._warnings: tuple[Problem, ...] | None = None
        self._input_files = input_files
        self._graph = graph
        self._evaluation = evaluation
        self._last_scope: tuple[AttributeSource, bool, Evaluation] | None = None
        self._parsed_properties = parsed_properties
        self._parsed_outputs = parsed_outputs
        self._context = context
        self._identity = identity
        self._needs_evaluation = needs_evaluation  # resources whose check needs evaluating (None: all)
        self._digest: str | None = None
        self._inputs: dict[str, Any] | None = None

    def __repr__(self) -> str:
        return f"StackDefinition({self.template_path!r}, {len(self.resources)} resources)"

    def with_member_count(self, count: int) -> StackDefinition | None:
        """A group's nested stack with `count` members, named on from its own (None: not a group's).

        A rolling update holds temporary members beyond the group's size while it runs."""
        return None if self._resize is None else self._resize(count)

    @property
    def warnings(self) -> tuple[Problem, ...]:
        """Warnings of this template and of every nested template it uses, each in its own file."""
        if self._warnings is None:
            nested = sorted(self.input_files - {self.template_path})
            self._warnings = self._own_warnings + self._context.warnings_of(nested)
        return self._warnings

    @property
    def input_files(self) -> frozenset[str]:
        """Every file this stack read: template, environments, nested templates, get_file targets."""
        if self._input_files is None:
            self._input_files = self._context.closure(self.template_path)
        return self._input_files

    def graph(self) -> Mapping[str, frozenset[str]]:
        """Resource -> the resources it requires (explicit depends_on plus get_resource/get_attr)."""
        return self._graph

    def _scope(self, source: AttributeSource, *, validating: bool = False) -> Evaluation:
        """The evaluation reading `source`; the last one is kept, as a run resolves against one source."""
        last = self._last_scope
        if last is not None and last[0] is source and last[1] is validating:
            return last[2]
        scope = dataclasses.replace(self._evaluation, source=source, validating=validating)
        self._last_scope = (source, validating, scope)
        return scope

    def _evaluate(self, scope: Evaluation, parsed: Any) -> Any:
        """Evaluate `parsed`; a failing function's message never carries a hidden value."""
        try:
            return scope.evaluate(parsed)
        except FunctionError as error:
            raise FunctionError(self.without_secrets(str(error)), error.where) from None

    def resolve(self, value: Any, source: AttributeSource) -> Any:
        """Any snippet written in this template's language, resolved against `source`."""
        scope = self._scope(source)
        problems: list[str] = []
        parser = Parser(
            scope.version, lambda where, message: problems.append(message), lambda where, message: None
        )
        parsed = parser.parse(value, (), References())
        if problems:
            raise FunctionError("; ".join(problems))
        return _present(self._evaluate(scope, parsed))

    def resolve_properties(self, name: str, source: AttributeSource) -> dict[str, Any]:
        """The properties of resource `name` with every function resolved."""
        resource = self.resources.get(name)
        if resource is None:
            raise KeyError(name)
        parsed = self._parsed_properties.get(name)
        if parsed is None:
            parsed = resource.properties
        value = self._evaluate(self._scope(source), parsed)
        if type(value) is not dict and not isinstance(value, Mapping):
            return {}
        return translated_properties(resource.type, value)

    def resolve_properties_known(self, name: str, source: AttributeSource) -> dict[str, Any]:
        """The properties of resource `name` as far as `source` knows them: a value it cannot give
        yet, and every value computed from one, is the `UNKNOWN` marker (what a plan shows as known
        only after apply)."""
        if name not in self.resources:
            raise KeyError(name)
        parsed = self._parsed_properties.get(name)
        if parsed is None:
            parsed = self.resources[name].properties
        value = self._evaluate(self._scope(source, validating=True), parsed)
        return dict(value) if isinstance(value, Mapping) else {}

    def resolve_output(self, name: str, source: AttributeSource) -> Any:
        """The value of output `name` (None when its condition is false)."""
        output = self.outputs[name]
        if not output.active:
            return None
        return _present(self._evaluate(self._scope(source), self._parsed_outputs[name]))

    def output_without_cloud(self, name: str) -> Any:
        """Output `name` as far as it resolves without a cloud: None where a live value is needed.

        Raises `FunctionError` when evaluating it fails with what is known.
        """
        output = self.outputs[name]
        if not output.active:
            return None
        scope = self._scope(NoCloud(), validating=True)
        return _known_part(_present(self._evaluate(scope, self._parsed_outputs[name])))

    def nested(
        self, name: str, properties: Mapping[str, Any], *, pseudo_parameters: Mapping[str, str] | None = None
    ) -> StackDefinition | None:
        """The nested stack of resource `name`, built from its resolved `properties` (None if plain).

        `pseudo_parameters` gives the nested stack's own OS::stack_name / OS::stack_id when the
        caller knows them; OS::project_id is inherited from this stack.
        """
        resource = self.resources[name]
        if resource.nested_kind is None:
            return None
        from reconciler.templates.nesting import nested_definition

        inherited = {key: value for key, value in self.pseudo_parameters.items() if key == "OS::project_id"}
        return nested_definition(self, resource, properties, {**inherited, **(pseudo_parameters or {})})

    def type_uses(self) -> Iterator[TypeUse]:
        """Every resource type this stack's tree uses, nested templates included, with where each
        is written."""
        from reconciler.templates.type_uses import type_uses

        return type_uses(self)

    def digest(self) -> str:
        """A stable hash of everything this definition wants (parameters, resources, outputs, files)."""
        if self._digest is None:
            self._digest = hashlib.sha256(_canonical(self._identity_document()).encode()).hexdigest()
        return self._digest

    def identify_by_inputs(self, inputs: Mapping[str, Any]) -> None:
        """Let the digest come from what this definition was made from, not from walking it.

        The loader calls this for a top-level stack: the definition is a pure function of the
        template path, the environments in order, the given parameter values, the pseudo
        parameters and the content of every file read, so hashing those is exact and costs a
        few milliseconds where walking 50,000 resources costs seconds.
        """
        self._inputs = dict(inputs)

    def _identity_document(self) -> Any:
        if self._identity is not None:
            return self._identity
        if self._inputs is not None:
            return {**self._inputs, "files": self._context.file_digests(self.input_files)}
        return {
            "template": self.template_path,
            "parameters": dict(self.parameters),
            "resources": {
                name: [
                    resource.type,
                    resource.properties,
                    sorted(resource.depends_on),
                    resource.metadata,
                    resource.deletion_policy,
                    resource.update_policy,
                    resource.external_id,
                ]
                for name, resource in self.resources.items()
            },
            "outputs": {name: [output.value, output.active] for name, output in self.outputs.items()},
            "files": self._context.file_digests(self.input_files),
        }

    @property
    def context(self) -> LoadContext:
        """How nested definitions of this stack are loaded (the shared file and model cache)."""
        return self._context

    @property
    def evaluation(self) -> Evaluation:
        """The evaluation scope (version, parameters, conditions, files) without a cloud."""
        return self._evaluation

    def without_secrets(self, text: str) -> str:
        """`text` with the values of the hidden parameters redacted (the rule of `hidden_values`)."""
        return redact(text, hidden_values(self.parameters, self.hidden_parameters))

    def parsed_properties(self, name: str) -> Any:
        """Resource `name`'s properties as parsed (calls unresolved, `if` branches chosen)."""
        return self._parsed_properties.get(name, {})

    def resource_text_digests(self) -> Mapping[str, bytes]:
        """Each resource's digest of its text as written, when the template was parsed by resource
        blocks or lines (empty otherwise)."""
        return self._context.model(self.template_path).document.resource_digests

    def resource_types_digest(self) -> bytes:
        """The digest of what decides a resource's effective type besides its text (the registry,
        the schemas known): equal for two definitions, a resource written alike has one type."""
        return types_digest(self._context.environment.registry)

    def parsed_output(self, name: str) -> Any:
        """Output `name`'s value as parsed (calls unresolved)."""
        return self._parsed_outputs.get(name)

    def problem_at(self, where: tuple[str, ...], message: str) -> Problem:
        """`message` located at `where` in this stack's template ("resources", name, ...)."""
        return self._context.model(self.template_path).document.problem(where, message)

    def problems_without_cloud(self) -> list[Problem]:
        """Functions that fail with only what is known without a cloud, at their positions.

        Every property, metadata and active output is evaluated with live values unknown: a
        function whose arguments are known is run (wrong arity, wrong types and failing pure
        functions show up, as in Heat's validation); one that needs a live value is skipped.
        """
        scope = self._scope(NoCloud(), validating=True)
        document = self._context.model(self.template_path).document
        parsed_of, needed = self._parsed_properties, self._needs_evaluation
        # by name, not by item: a reused resource's properties stay pickled unless they are needed
        snippets = [(parsed_of[name], False) for name in parsed_of if needed is None or name in needed]
        snippets += [
            (parsed, True) for name, parsed in self._parsed_outputs.items() if self.outputs[name].active
        ]

        def check(snippet: tuple[Any, bool]) -> Problem | None:
            parsed, is_output = snippet
            try:
                scope.evaluate(parsed)
            except ResolutionError as error:
                if is_output:
                    return None  # as Heat: the output's own error when resolved, the stack stays valid
                return document.problem(error.where or (), self.without_secrets(str(error)))
            except FunctionError as error:
                return document.problem(error.where or (), self.without_secrets(str(error)))
            return None

        return [problem for problem in map(check, snippets) if problem is not None]


def _present(value: Any) -> Any:
    """A whole value that a wallaby `if` left out is null."""
    return None if value is OMITTED else value


def _known_part(value: Any) -> Any:
    if value is UNKNOWN:
        return None
    if isinstance(value, dict):
        return {key: _known_part(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_known_part(item) for item in value]
    return value


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr)


class LazyMapping(Mapping[str, Any]):
    """A read-only mapping whose values are computed on access from a key list."""

    def __init__(self, keys: tuple[str, ...] | range, produce: Any, key_of: Any = str) -> None:
        self._keys = keys
        self._produce = produce
        self._key_of = key_of
        self._names: Mapping[str, int] | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return (self._key_of(key) for key in self._keys)

    def __contains__(self, key: object) -> bool:
        return self._position(key) is not None

    def _position(self, key: object) -> int | None:
        if isinstance(self._keys, range):
            if isinstance(key, str) and key.isdigit() and str(int(key)) == key and int(key) in self._keys:
                return int(key)
            return None
        if self._names is None:
            self._names = {self._key_of(name): index for index, name in enumerate(self._keys)}
        return self._names.get(key) if isinstance(key, str) else None

    def __getitem__(self, key: str) -> Any:
        if self._position(key) is None:
            raise KeyError(key)
        return self._produce(key)
