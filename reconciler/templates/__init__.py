"""Templates layer: HOT and environment loading, validation, intrinsic functions, stack definitions.

Pure: may import schemas only; no state, providers, engine, clock or I/O beyond reading a given repo
tree (through a `FileSource`). The public contract the engine, plan and daemon code against:

- `FileSource`, `DirectorySource`: reading repository files safely; `IdentifiedFileSource` for files
  with content ids (a commit's blobs), whose parsed documents a `DocumentCache` keeps across loads;
- `BlockKeeper`, `MemoryBlockKeeper`: a YAML template's resources kept parsed by the digest of their
  text, so a template changed in one resource parses that one;
- `load_repository_config`, `load_repository_limits`, `RepositoryConfig`, `StackSpec`,
  `StackOutputRef`, `stack_order`;
- `load_stack` -> `StackDefinition` (with `ResourceDefinition`, `OutputDefinition`);
- `AttributeSource`, `Unresolved`, `NoCloud`: live values for the resolver;
- `nested_attribute`, `MemberValues`: attributes of groups and template resources;
- `TemplateError`, `Problem`, `Limits`.
"""

from reconciler.templates.block_parsing import BlockKeeper, MemoryBlockKeeper
from reconciler.templates.definition import OutputDefinition, ResourceDefinition, StackDefinition
from reconciler.templates.document_cache import DocumentCache
from reconciler.templates.errors import FunctionError, Problem, TemplateError, Unresolved
from reconciler.templates.evaluation import AttributeSource, NoCloud
from reconciler.templates.file_source import (
    DirectorySource,
    FileSource,
    IdentifiedFileSource,
    MemorySource,
)
from reconciler.templates.group_attributes import MemberValues, nested_attribute
from reconciler.templates.limits import Limits
from reconciler.templates.loading import load_stack
from reconciler.templates.repository_config import (
    RepositoryConfig,
    StackOutputRef,
    StackSpec,
    load_repository_config,
    load_repository_limits,
    stack_order,
)

__all__ = [
    "AttributeSource",
    "BlockKeeper",
    "DirectorySource",
    "DocumentCache",
    "FileSource",
    "FunctionError",
    "IdentifiedFileSource",
    "Limits",
    "MemberValues",
    "MemoryBlockKeeper",
    "MemorySource",
    "NoCloud",
    "OutputDefinition",
    "Problem",
    "RepositoryConfig",
    "ResourceDefinition",
    "StackDefinition",
    "StackOutputRef",
    "StackSpec",
    "TemplateError",
    "Unresolved",
    "load_repository_config",
    "load_repository_limits",
    "load_stack",
    "nested_attribute",
    "stack_order",
]
