"""Collection functions: repeat, map_merge, map_replace, list_concat(_unique), filter, contains,
and the CFN-style Fn::Select and Fn::MemberListToMap."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from typing import Any

from reconciler.templates.errors import FunctionError
from reconciler.templates.evaluation import Evaluation


def _substitute(template: Any, replacements: Mapping[str, str]) -> Any:
    if isinstance(template, str):
        for key, value in replacements.items():
            template = template.replace(key, value)
        return template
    if isinstance(template, Mapping):
        return {
            _substitute(key, replacements): _substitute(value, replacements)
            for key, value in template.items()
        }
    if isinstance(template, list):
        return [_substitute(item, replacements) for item in template]
    return template


def repeat(args: Any, scope: Evaluation) -> list[Any]:
    """`repeat: {template, for_each: {var: list}, permutations: bool}`."""
    if not isinstance(args, Mapping) or "for_each" not in args or "template" not in args:
        raise FunctionError('Arguments to "repeat" must be a map with the keys "for_each" and "template"')
    allowed = {"for_each", "template"} | ({"permutations"} if scope.version.repeat_permutations else set())
    if set(args) - allowed:
        raise FunctionError(f'Unknown keys in "repeat": {", ".join(sorted(set(args) - allowed))}')
    for_each = args["for_each"]
    if not isinstance(for_each, Mapping) or not for_each:
        raise FunctionError('The "for_each" argument to "repeat" must contain a map')
    loops: list[list[str]] = []
    for key, given in for_each.items():
        values = list(given) if isinstance(given, Mapping) else given
        if not isinstance(values, list):
            raise FunctionError(f'The values of the "for_each" argument to "repeat" must be lists ({key})')
        loops.append([value if isinstance(value, str) else json.dumps(value) for value in values])
    permutations = args.get("permutations", True)
    if not isinstance(permutations, bool):
        raise FunctionError('"permutations" should be boolean type for "repeat" function')
    keys = [str(key) for key in for_each]
    if permutations:
        combinations = list(itertools.product(*loops))
    else:
        if len({len(values) for values in loops}) > 1:
            raise FunctionError(
                'Loops in "for_each" must all be the same length when "permutations" is false'
            )
        combinations = list(zip(*loops, strict=True))
    return [_substitute(args["template"], dict(zip(keys, values, strict=True))) for values in combinations]


def map_merge(args: Any, scope: Evaluation) -> dict[Any, Any]:
    """`map_merge: [map, ...]`: later maps win."""
    if not isinstance(args, list):
        raise FunctionError('Incorrect arguments to "map_merge" should be: map_merge: [map, ...]')
    merged: dict[Any, Any] = {}
    for item in args:
        if item is None:
            continue
        if not isinstance(item, Mapping):
            raise FunctionError(f"Incorrect arguments: items to merge must be maps. {item!r} is not a map")
        merged.update(item)
    return merged


def map_replace(args: Any, scope: Evaluation) -> dict[Any, Any]:
    """`map_replace: [map, {keys: {old: new}, values: {old: new}}]`."""
    if not isinstance(args, list) or len(args) != 2:
        raise FunctionError(
            'Incorrect arguments to "map_replace" should be: map_replace: [map, {keys, values}]'
        )
    source, replacements = args
    if not isinstance(source, Mapping):
        raise FunctionError(
            f'Incorrect arguments: to "map_replace", the first argument must be a map, not {source!r}'
        )
    if not isinstance(replacements, Mapping) or set(replacements) - {"keys", "values"}:
        raise FunctionError(
            'Incorrect arguments to "map_replace": the second argument takes only "keys" and "values"'
        )
    keys = replacements.get("keys") or {}
    values = replacements.get("values") or {}
    if not isinstance(keys, Mapping) or not isinstance(values, Mapping):
        raise FunctionError('Incorrect arguments to "map_replace": "keys" and "values" must be maps')
    result: dict[Any, Any] = {}
    for key, value in source.items():
        new_key = keys.get(key, key)
        if new_key in result or (new_key != key and new_key in source):
            raise FunctionError(f"key replacement {new_key} collides with a key in the input map")
        result[new_key] = values.get(value, value) if _hashable(value) else value
    return result


def _hashable(value: Any) -> bool:
    return not isinstance(value, dict | list)


def list_concat(args: Any, scope: Evaluation) -> list[Any]:
    """`list_concat: [list, ...]`."""
    if not isinstance(args, list):
        raise FunctionError('Incorrect arguments to "list_concat" should be: list_concat: [list, ...]')
    result: list[Any] = []
    for item in args:
        if item is None:
            continue
        if not isinstance(item, list):
            raise FunctionError(f"Incorrect arguments: items to concat must be lists. {item!r} is not a list")
        result.extend(item)
    return result


def list_concat_unique(args: Any, scope: Evaluation) -> list[Any]:
    """`list_concat_unique: [list, ...]`: concatenated, each item kept once (first occurrence)."""
    result: list[Any] = []
    for item in list_concat(args, scope):
        if item not in result:
            result.append(item)
    return result


def filter_values(args: Any, scope: Evaluation) -> list[Any]:
    """`filter: [values to remove, list]`."""
    if not isinstance(args, list) or len(args) != 2:
        raise FunctionError('Incorrect arguments to "filter" should be: filter: [values, list]')
    remove, sequence = args
    if remove is not None and not isinstance(remove, list):
        raise FunctionError('Incorrect arguments to "filter": the values to filter must be a list')
    if not isinstance(sequence, list):
        raise FunctionError('Incorrect arguments to "filter": the sequence must be a list')
    return [item for item in sequence if item not in (remove or [])]


def contains(args: Any, scope: Evaluation) -> bool:
    """`contains: [value, sequence]`."""
    if not isinstance(args, list) or len(args) != 2:
        raise FunctionError('Arguments to "contains" must be of the form [value, sequence]')
    value, sequence = args
    if not isinstance(sequence, list | str | Mapping):
        raise FunctionError('Incorrect arguments to "contains": the second argument must be a sequence')
    return value in sequence


def cfn_select(args: Any, scope: Evaluation) -> Any:
    """`Fn::Select: [index, list or map]`: "" when absent, as Heat."""
    if not isinstance(args, list) or len(args) != 2:
        raise FunctionError('Arguments to "Fn::Select" must be of the form [index, collection]')
    index, collection = args
    if isinstance(collection, str):
        try:
            collection = json.loads(collection)
        except ValueError:
            raise FunctionError(f'"Fn::Select" cannot select from the string {collection!r}') from None
    if collection is None:
        return ""
    if isinstance(collection, list):
        try:
            return collection[int(index)]
        except (ValueError, TypeError):
            raise FunctionError(f'"Fn::Select": index must be a number, not {index!r}') from None
        except IndexError:
            return ""
    if isinstance(collection, Mapping):
        return collection.get(index, "")
    raise FunctionError('"Fn::Select" collection must be a list or a map')


def member_list_to_map(args: Any, scope: Evaluation) -> dict[str, Any]:
    """`Fn::MemberListToMap: [key_name, value_name, [".member.N.Key=value", ...]]`."""
    if not isinstance(args, list) or len(args) != 3 or not isinstance(args[2], list):
        raise FunctionError(
            'Arguments to "Fn::MemberListToMap" must be [key name, value name, [member list]]'
        )
    key_name, value_name, members = args
    items: dict[str, dict[str, str]] = {}
    for member in members:
        text = str(member)
        path, _, value = text.partition("=")
        parts = path.strip(".").split(".")
        if len(parts) != 3 or parts[0] != "member":
            raise FunctionError(f'Wrong input to "Fn::MemberListToMap": {text!r}')
        items.setdefault(parts[1], {})[parts[2]] = value
    return {item[key_name]: item.get(value_name) for item in items.values() if key_name in item}
