"""Bounds on what a template may cost to read: size, YAML alias expansion, nesting, yaql work."""

from __future__ import annotations

from dataclasses import dataclass

KIB = 1024


@dataclass(frozen=True)
class Limits:
    """Every limit applied while loading; the defaults follow Heat's own configuration defaults."""

    max_template_bytes: int = 512 * KIB  # Heat's max_template_size
    max_yaml_nodes: int = 1_000_000  # nodes after alias expansion: a "billion laughs" stops here
    max_yaml_depth: int = 200  # collection nesting inside one document
    max_nested_stack_depth: int = 5  # Heat's max_nested_stack_depth
    yaql_memory_quota: int = 10_000  # Heat's yaql memory_quota
    yaql_limit_iterators: int = 200  # Heat's yaql limit_iterators
    yaql_max_calls: int = 1_000_000  # Python calls one yaql evaluation may make (about a second)
