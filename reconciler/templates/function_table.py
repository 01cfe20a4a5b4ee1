"""Every intrinsic function by name: evaluated arguments first, or lazily for the conditional ones.

Which names a template may use is decided by its version (versions.py), not here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from reconciler.templates import (
    functions_collections as collections,
)
from reconciler.templates import (
    functions_conditions as conditions,
)
from reconciler.templates import (
    functions_references as references,
)
from reconciler.templates import (
    functions_strings as strings,
)
from reconciler.templates.evaluation import Evaluation
from reconciler.templates.yaql_function import evaluate_yaql

Function = Callable[[Any, Evaluation], Any]

FUNCTIONS: dict[str, Function] = {
    "get_param": references.get_param,
    "get_resource": references.get_resource,
    "get_attr": references.get_attr,
    "get_file": references.get_file,
    "resource_facade": references.resource_facade,
    "str_replace": strings.str_replace,
    "str_replace_strict": strings.str_replace_strict,
    "str_replace_vstrict": strings.str_replace_vstrict,
    "list_join": strings.list_join,
    "str_split": strings.str_split,
    "digest": strings.digest,
    "make_url": strings.make_url,
    "repeat": collections.repeat,
    "map_merge": collections.map_merge,
    "map_replace": collections.map_replace,
    "list_concat": collections.list_concat,
    "list_concat_unique": collections.list_concat_unique,
    "filter": collections.filter_values,
    "contains": collections.contains,
    "yaql": evaluate_yaql,
    "equals": conditions.equals,
    "Fn::Select": collections.cfn_select,
    "Fn::MemberListToMap": collections.member_list_to_map,
    "Fn::Join": strings.cfn_join,
    "Fn::Split": strings.cfn_split,
    "Fn::Replace": strings.cfn_replace,
    "Fn::Base64": strings.cfn_base64,
    "Fn::ResourceFacade": references.cfn_resource_facade,
    "Fn::GetAZs": references.get_azs,
    "Ref": references.ref,
}

LAZY_FUNCTIONS: dict[str, Function] = {
    "if": conditions.choose,
    "not": conditions.logical_not,
    "and": conditions.logical_and,
    "or": conditions.logical_or,
}
