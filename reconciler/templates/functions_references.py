"""Functions that read parameters, resources, files and the owning resource (HOT specification)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from reconciler.templates.errors import FunctionError, ResolutionError, Unresolved
from reconciler.templates.evaluation import UNKNOWN, Evaluation

PSEUDO_PARAMETERS = ("OS::stack_name", "OS::stack_id", "OS::project_id")
ALL_ATTRIBUTES = ""
# The CFN pseudo parameters Ref knows in 2013-05-23 templates; None: only the cloud knows it.
CFN_PSEUDO_PARAMETERS = {
    "AWS::StackName": "OS::stack_name",
    "AWS::StackId": "OS::stack_id",
    "AWS::Region": None,
}


def get_param(args: Any, scope: Evaluation) -> Any:
    """`get_param: name` or `get_param: [name, key-or-index, ...]`."""
    if isinstance(args, list):
        if not args:
            raise FunctionError('Function "get_param" must have arguments')
        name, path = args[0], args[1:]
    else:
        name, path = args, []
    if not isinstance(name, str):
        raise FunctionError('Function "get_param": the parameter name must be a string')
    if name not in scope.parameters:
        raise FunctionError(f"The Parameter ({name}) was not defined in template.")
    value = scope.parameters[name]
    if value is UNKNOWN:
        if scope.validating:
            return UNKNOWN
        if name in PSEUDO_PARAMETERS:
            # No later moment gives a pseudo parameter a value: waiting for one would never end.
            raise ResolutionError(f"The Parameter ({name}) has no value where this stack is resolved")
        raise Unresolved(name)
    return _select_path(value, path)


def _select_path(value: Any, path: list[Any]) -> Any:
    # As Heat: a missing map key gives {}; a bad index, a key that is not a string (an integer
    # into a map, a map) or a non-collection gives "": Heat's path walk never fails a template.
    for key in path:
        if key is UNKNOWN:
            return UNKNOWN
        if isinstance(value, Mapping):
            if not isinstance(key, str):
                return ""
            value = value.get(key, {})
        elif isinstance(value, list):
            try:
                value = value[int(key)]
            except (ValueError, IndexError, TypeError):
                return ""
        else:
            return ""
    return value


def get_resource(args: Any, scope: Evaluation) -> Any:
    """`get_resource: name`: the physical id."""
    if not isinstance(args, str):
        raise FunctionError('Function "get_resource" takes a resource name (a string)')
    return scope.live(args, lambda: scope.source.physical_id(args))


def get_attr(args: Any, scope: Evaluation) -> Any:
    """`get_attr: [resource, attribute, path...]`; the attribute may be omitted from 2015-10-15."""
    if not isinstance(args, list) or not args:
        raise FunctionError(
            'Arguments to "get_attr" must be of the form [resource_name, attribute, (path), ...]'
        )
    resource = args[0]
    if not isinstance(resource, str):
        raise FunctionError('Function "get_attr": the resource name must be a string')
    all_attributes = scope.version.date >= "2015-10-15"
    if len(args) < 2 and not all_attributes:
        raise FunctionError(
            'Arguments to "get_attr" must be of the form [resource_name, attribute, (path), ...]'
        )
    name = args[1] if len(args) > 1 else ALL_ATTRIBUTES
    if not isinstance(name, str):
        raise FunctionError('Function "get_attr": the attribute name must be a string')
    path: Sequence[Any] = args[2:]
    grouped = resource in scope.group_resources
    if grouped:
        from reconciler.templates.group_attributes import member_reference_path

        name, path = member_reference_path(name, path)
    value = scope.live(resource, lambda: scope.source.attribute(resource, name))
    if grouped:
        from reconciler.templates.group_attributes import select_group_path

        return value if value is UNKNOWN else select_group_path(name, value, path)
    if value is UNKNOWN or value is None:
        return value
    return select_from_attribute(value, list(path))


def select_from_attribute(value: Any, path: list[Any]) -> Any:
    """Walk `path` into an attribute value; None when the path does not exist (as Heat)."""
    for key in path:
        try:
            if isinstance(value, Mapping):
                value = value[key]
            elif isinstance(value, list):
                value = value[int(key)]
            else:
                return None
        except (KeyError, IndexError, TypeError, ValueError):
            return None
    return value


def get_file(args: Any, scope: Evaluation) -> Any:
    """`get_file: path`: the file's contents (read when the template was loaded)."""
    if not isinstance(args, str):
        raise FunctionError('Function "get_file" takes a file path (a string)')
    if args not in scope.files:
        raise FunctionError(f"No content found in the files for get_file: {args}")
    return scope.files[args]


_FACADE_KEYS = {
    "metadata": "metadata",
    "deletion_policy": "deletion_policy",
    "update_policy": "update_policy",
}
_CFN_FACADE_KEYS = {
    "Metadata": "metadata",
    "DeletionPolicy": "deletion_policy",
    "UpdatePolicy": "update_policy",
}


def resource_facade(args: Any, scope: Evaluation) -> Any:
    """`resource_facade: metadata|deletion_policy|update_policy` of the resource owning this stack."""
    return _facade(args, scope, _FACADE_KEYS, "resource_facade")


def cfn_resource_facade(args: Any, scope: Evaluation) -> Any:
    """`Fn::ResourceFacade: Metadata|DeletionPolicy|UpdatePolicy`."""
    return _facade(args, scope, _CFN_FACADE_KEYS, "Fn::ResourceFacade")


def _facade(args: Any, scope: Evaluation, keys: Mapping[str, str], name: str) -> Any:
    if args not in keys:
        raise FunctionError(f'Incorrect arguments to "{name}" should be one of: {", ".join(keys)}')
    value = getattr(scope.facade, keys[args])
    return {} if value is None and keys[args] != "deletion_policy" else value


def ref(args: Any, scope: Evaluation) -> Any:
    """`Ref: name` (2013-05-23): a parameter's value or a resource's physical id."""
    if not isinstance(args, str):
        raise FunctionError('Function "Ref" takes a name (a string)')
    if args in CFN_PSEUDO_PARAMETERS:
        pseudo = CFN_PSEUDO_PARAMETERS[args]
        return get_param(pseudo, scope) if pseudo else scope.live_value(args)
    if args in scope.parameters:
        return get_param(args, scope)
    if args in scope.all_resources:
        return get_resource(args, scope)
    raise FunctionError(f'The specified reference "{args}" (in Ref) is incorrect.')


def get_azs(args: Any, scope: Evaluation) -> Any:
    """`Fn::GetAZs`: the cloud's availability zones, known only from a live cloud."""
    return scope.live_value("Fn::GetAZs")
