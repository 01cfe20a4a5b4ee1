"""The HOT versions, and exactly which sections, keys and functions each one admits (as Heat).

A function name a version does not know is plain data under that version: `{yaql: ...}` in a
2015-10-15 template is a one-key map, as it was under Heat. A function a version *removed* (the
CFN-style names after 2013-05-23) is an error there, as Heat reports it. Later versions only add,
except for those removals and for `if` becoming nullable (its false branch may be omitted) in
wallaby.
"""

from __future__ import annotations

from dataclasses import dataclass

CFN_FUNCTIONS = frozenset(
    {
        "Fn::GetAZs",
        "Ref",
        "Fn::Join",
        "Fn::Split",
        "Fn::Replace",
        "Fn::Base64",
        "Fn::MemberListToMap",
        "Fn::ResourceFacade",
    }
)


@dataclass(frozen=True)
class TemplateVersion:
    """One `heat_template_version` and what it admits."""

    date: str
    alias: str | None
    functions: frozenset[str]
    removed: frozenset[str]  # names that are errors, not data, in this version
    condition_functions: frozenset[str]
    sections: frozenset[str]
    resource_keys: frozenset[str]
    output_keys: frozenset[str]
    nullable_if: bool = False
    repeat_permutations: bool = False

    @property
    def name(self) -> str:
        return self.date if self.alias is None else f"{self.date} ({self.alias})"


_BASE_SECTIONS = frozenset(
    {"heat_template_version", "description", "parameter_groups", "parameters", "resources", "outputs"}
)
_BASE_RESOURCE_KEYS = frozenset(
    {"type", "properties", "metadata", "depends_on", "deletion_policy", "update_policy", "description"}
)

_V20130523 = frozenset(
    {
        "get_param",
        "get_resource",
        "get_attr",
        "get_file",
        "list_join",
        "str_replace",
        "resource_facade",
        "Fn::Select",
        *CFN_FUNCTIONS,
    }
)
_V20141016 = frozenset(
    {
        "get_param",
        "get_resource",
        "get_attr",
        "get_file",
        "list_join",
        "str_replace",
        "resource_facade",
        "Fn::Select",
    }
)
_V20150430 = _V20141016 | {"digest", "repeat"}
_V20151015 = (_V20150430 - {"Fn::Select"}) | {"str_split"}
_V20160408 = _V20151015 | {"map_merge"}
_V20161014 = _V20160408 | {"yaql", "map_replace", "if"}
_V20170224 = _V20161014 | {"str_replace_strict", "filter"}
_V20170901 = _V20170224 | {"make_url", "list_concat", "list_concat_unique", "contains", "str_replace_vstrict"}

_CONDITIONS_2016 = frozenset({"get_param", "equals", "not", "and", "or"})
_CONDITIONS_2017 = _CONDITIONS_2016 | {"yaql", "contains"}


def _version(
    date: str,
    alias: str | None,
    functions: frozenset[str],
    *,
    conditions: frozenset[str] = frozenset(),
    nullable_if: bool = False,
    repeat_permutations: bool = False,
) -> TemplateVersion:
    has_conditions = bool(conditions)
    removed = (CFN_FUNCTIONS | {"Fn::Select"}) - functions if date != "2013-05-23" else frozenset()
    return TemplateVersion(
        date=date,
        alias=alias,
        functions=functions,
        removed=frozenset(removed),
        condition_functions=conditions,
        sections=_BASE_SECTIONS | ({"conditions"} if has_conditions else set()),
        resource_keys=_BASE_RESOURCE_KEYS | ({"condition", "external_id"} if has_conditions else set()),
        output_keys=frozenset({"description", "value"} | ({"condition"} if has_conditions else set())),
        nullable_if=nullable_if,
        repeat_permutations=repeat_permutations,
    )


VERSIONS: tuple[TemplateVersion, ...] = (
    _version("2013-05-23", None, _V20130523),
    _version("2014-10-16", None, _V20141016),
    _version("2015-04-30", None, _V20150430),
    _version("2015-10-15", None, _V20151015),
    _version("2016-04-08", None, _V20160408),
    _version("2016-10-14", "newton", _V20161014, conditions=_CONDITIONS_2016),
    _version("2017-02-24", "ocata", _V20170224, conditions=_CONDITIONS_2016),
    _version("2017-09-01", "pike", _V20170901, conditions=_CONDITIONS_2017, repeat_permutations=True),
    _version("2018-03-02", "queens", _V20170901, conditions=_CONDITIONS_2017, repeat_permutations=True),
    _version("2018-08-31", "rocky", _V20170901, conditions=_CONDITIONS_2017, repeat_permutations=True),
    _version(
        "2021-04-16",
        "wallaby",
        _V20170901,
        conditions=_CONDITIONS_2017 | {"if"},
        nullable_if=True,
        repeat_permutations=True,
    ),
)

_BY_NAME = {version.date: version for version in VERSIONS} | {
    version.alias: version for version in VERSIONS if version.alias
}

ALL_FUNCTIONS: frozenset[str] = frozenset().union(
    *(version.functions | version.condition_functions for version in VERSIONS)
)


def version_named(name: object) -> TemplateVersion | None:
    """The version a `heat_template_version` value names, or None when it names none."""
    return _BY_NAME.get(str(name))


def first_version_with(function: str, *, in_conditions: bool = False) -> TemplateVersion | None:
    """The earliest version admitting `function` (in the conditions section when asked)."""
    for version in VERSIONS:
        admitted = version.condition_functions if in_conditions else version.functions
        if function in admitted:
            return version
    return None


def known_version_names() -> list[str]:
    """Every accepted `heat_template_version` value, for error messages."""
    return [version.date for version in VERSIONS] + [version.alias for version in VERSIONS if version.alias]
