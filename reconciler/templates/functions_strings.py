"""String functions: str_replace (and its strict forms), list_join, str_split, digest, make_url,
and the CFN-style Fn::Join, Fn::Split, Fn::Replace and Fn::Base64 of 2013-05-23."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import quote, urlencode, urlunsplit

from reconciler.templates.errors import FunctionError, ResolutionError
from reconciler.templates.evaluation import Evaluation

DIGEST_ALGORITHMS = ("md5", "sha1", "sha224", "sha256", "sha384", "sha512")


def _replacement_text(value: Any, name: str, as_json: bool) -> str:
    # As Heat: numbers and booleans are written with str(); maps and lists as sorted JSON from 2015-10-15.
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    if as_json and isinstance(value, Mapping | list):
        return json.dumps(value, sort_keys=True)
    raise FunctionError(f'"{name}" params must be strings or numbers, got {type(value).__name__}')


def _str_replace(args: Any, scope: Evaluation, name: str, strictness: int) -> str:
    if not isinstance(args, Mapping):
        raise FunctionError(f'Arguments to "{name}" must be a map with keys "template" and "params"')
    unknown = set(args) - {"template", "params"}
    if unknown or "template" not in args or "params" not in args:
        raise FunctionError(f'"{name}" needs the keys "template" and "params" (and no others)')
    template, params = args["template"], args["params"]
    if not isinstance(template, str):
        raise FunctionError(f'"{name}" template must be a string')
    if not isinstance(params, Mapping):
        raise FunctionError(f'"{name}" params must be a map')
    as_json = scope.version.date >= "2015-10-15"
    replacements = {str(key): _replacement_text(value, name, as_json) for key, value in params.items()}
    if strictness >= 1:
        missing = sorted(key for key in replacements if key not in template)
        if missing:
            raise ResolutionError(
                f"The following params were not found in the template: {', '.join(missing)}"
            )
    if strictness >= 2:
        empty = sorted(key for key, value in replacements.items() if value == "")
        if empty:
            raise ResolutionError(f"The following params have empty values: {', '.join(empty)}")
    if not replacements:
        return template
    pattern = re.compile("|".join(re.escape(key) for key in sorted(replacements, key=len, reverse=True)))
    return pattern.sub(lambda match: replacements[match.group(0)], template)


def str_replace(args: Any, scope: Evaluation) -> str:
    """`str_replace: {template, params}`: every occurrence of each key replaced, longest key first."""
    return _str_replace(args, scope, "str_replace", 0)


def str_replace_strict(args: Any, scope: Evaluation) -> str:
    """As str_replace, but a param key missing from the template is an error."""
    return _str_replace(args, scope, "str_replace_strict", 1)


def str_replace_vstrict(args: Any, scope: Evaluation) -> str:
    """As str_replace_strict, and a param value that is empty is an error too."""
    return _str_replace(args, scope, "str_replace_vstrict", 2)


def _join_item(item: Any, as_json: bool) -> str:
    # As Heat: before 2015-10-15 only strings join; from then maps and lists join as sorted JSON.
    if item is None:
        return ""
    if isinstance(item, str):
        return item
    if not as_json:
        raise FunctionError(f"Items to join must be strings not {item!r}"[:250])
    if isinstance(item, Mapping | list):
        return json.dumps(item, sort_keys=True)
    raise FunctionError(f"Items to join must be string, map or list not {item!r}"[:250])


def list_join(args: Any, scope: Evaluation) -> str:
    """`list_join: [delimiter, list, ...]` (several lists from 2015-10-15)."""
    multiple = scope.version.date >= "2015-10-15"
    if not isinstance(args, list) or len(args) < 2 or (len(args) > 2 and not multiple):
        raise FunctionError('Incorrect arguments to "list_join" should be: list_join: [delimiter, list]')
    delimiter = args[0]
    if not isinstance(delimiter, str):
        raise FunctionError('Incorrect arguments to "list_join": the delimiter must be a string')
    items: list[str] = []
    for strings in args[1:]:
        if strings is None:
            continue
        if not isinstance(strings, list):
            raise FunctionError('Incorrect arguments to "list_join": each value to join must be a list')
        items.extend(_join_item(item, as_json=multiple) for item in strings)
    return delimiter.join(items)


def str_split(args: Any, scope: Evaluation) -> Any:
    """`str_split: [delimiter, string, (index)]`."""
    if not isinstance(args, list) or len(args) not in (2, 3):
        raise FunctionError(
            'Incorrect arguments to "str_split" should be: str_split: [delimiter, string, (index)]'
        )
    delimiter, string = args[0], args[1]
    if not isinstance(delimiter, str) or not delimiter:
        raise FunctionError('Incorrect arguments to "str_split": the delimiter must be a non-empty string')
    if not isinstance(string, str):
        raise FunctionError(f'Incorrect arguments to "str_split": {string!r} is not a string')
    parts = string.split(delimiter)
    if len(args) == 2:
        return parts
    try:
        return parts[int(args[2])]
    except (ValueError, TypeError):
        raise FunctionError(f'Incorrect index to "str_split": {args[2]!r}') from None
    except IndexError:
        raise FunctionError(
            f'Incorrect index to "str_split" should be between 0 and {len(parts) - 1}'
        ) from None


def digest(args: Any, scope: Evaluation) -> str:
    """`digest: [algorithm, value]`: the hex digest of a string."""
    if not isinstance(args, list) or len(args) != 2:
        raise FunctionError('Argument to function "digest" should be a list of [algorithm, value]')
    algorithm, value = args
    if algorithm not in DIGEST_ALGORITHMS:
        raise FunctionError(f"Algorithm must be one of {', '.join(DIGEST_ALGORITHMS)}")
    if not isinstance(value, str):
        raise FunctionError('The "value" argument of "digest" must be a string')
    return hashlib.new(algorithm, value.encode("utf-8")).hexdigest()


_URL_KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")


def make_url(args: Any, scope: Evaluation) -> str:
    """`make_url: {scheme, username, password, host, port, path, query, fragment}`."""
    if not isinstance(args, Mapping):
        raise FunctionError('The arguments to "make_url" must be a map')
    unknown = sorted(set(args) - set(_URL_KEYS))
    if unknown:
        raise FunctionError(f'Unknown arguments to "make_url": {", ".join(map(str, unknown))}')
    host = str(args.get("host") or "")
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"  # an IPv6 address
    credentials = ""
    if args.get("username") is not None:
        credentials = quote(str(args["username"]), safe="")
        if args.get("password") is not None:
            credentials += ":" + quote(str(args["password"]), safe="")
        credentials += "@"
    port = args.get("port")
    if port is not None:
        try:
            number = int(port)
        except (TypeError, ValueError):
            raise FunctionError(f'Invalid "port" in "make_url": {port!r}') from None
        if not 1 <= number <= 65535:
            raise FunctionError(f'Invalid "port" in "make_url": {port!r} is out of range')
        host = f"{host}:{number}"
    query = args.get("query")
    if query is not None and not isinstance(query, Mapping):
        raise FunctionError('The "query" argument of "make_url" must be a map')
    path = quote(str(args.get("path") or ""))
    if path and not path.startswith("/"):
        path = "/" + path
    return urlunsplit(
        (
            str(args.get("scheme") or ""),
            credentials + host,
            path,
            urlencode(query or {}),
            quote(str(args.get("fragment") or "")),
        )
    )


def cfn_join(args: Any, scope: Evaluation) -> str:
    """`Fn::Join: [delimiter, [strings]]`."""
    if not isinstance(args, list) or len(args) != 2 or not isinstance(args[1], list):
        raise FunctionError('Arguments to "Fn::Join" must be of the form [delimiter, [list, of, strings]]')
    if not isinstance(args[0], str):
        raise FunctionError('"Fn::Join" delimiter must be a string')
    return args[0].join(_join_item(item, as_json=False) for item in args[1])


def cfn_split(args: Any, scope: Evaluation) -> list[str]:
    """`Fn::Split: [delimiter, string]`."""
    if not isinstance(args, list) or len(args) != 2 or not all(isinstance(arg, str) for arg in args):
        raise FunctionError('Arguments to "Fn::Split" must be of the form [delimiter, string]')
    return str(args[1]).split(str(args[0]))


def cfn_replace(args: Any, scope: Evaluation) -> str:
    """`Fn::Replace: [{old: new}, template]`."""
    if not isinstance(args, list) or len(args) != 2 or not isinstance(args[0], Mapping):
        raise FunctionError('Arguments to "Fn::Replace" must be of the form [{placeholder: value}, template]')
    return _str_replace({"template": args[1], "params": args[0]}, scope, "Fn::Replace", 0)


def cfn_base64(args: Any, scope: Evaluation) -> str:
    """`Fn::Base64: string`: the string itself; as in Heat, the compute service does the encoding."""
    if not isinstance(args, str):
        raise FunctionError('Arguments to "Fn::Base64" must be a string')
    return args
