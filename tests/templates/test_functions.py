"""Intrinsic functions, one table row per behaviour, written from the HOT specification.

Each row: the template version, the snippet (the `value` property of a resource), the parameters
it reads, and either the resolved value against a ready cloud or the text of the error. Where the
specification is silent, Heat's behaviour is the expectation (noted on the row).
"""

from __future__ import annotations

from typing import Any

import pytest

from reconciler.templates import TemplateError

from .snippets import load_template, template_with, value_of

ROCKY = "2018-08-31"
PARAMETERS = {
    "name": {"type": "string", "default": "web"},
    "count": {"type": "number", "default": 3},
    "config": {"type": "json", "default": {"a": {"b": [1, 2]}, "k": "v"}},
    "zones": {"type": "comma_delimited_list", "default": "az1, az2"},
    "flag": {"type": "boolean", "default": "yes"},
}

RESOLVES: list[tuple[str, str, Any, Any]] = [
    # get_param
    ("get_param string", ROCKY, {"get_param": "name"}, "web"),
    ("get_param number is typed", ROCKY, {"get_param": "count"}, 3),
    ("get_param path into json", ROCKY, {"get_param": ["config", "a", "b", 1]}, 2),
    ("get_param missing key gives {} (Heat)", ROCKY, {"get_param": ["config", "nope"]}, {}),
    ("get_param bad index gives '' (Heat)", ROCKY, {"get_param": ["zones", 7]}, ""),
    ("comma_delimited_list keeps spaces (Heat)", ROCKY, {"get_param": "zones"}, ["az1", " az2"]),
    ("boolean yes", ROCKY, {"get_param": "flag"}, True),
    ("pseudo parameter stack name", ROCKY, {"get_param": "OS::stack_name"}, "demo"),
    # get_resource / get_attr
    ("get_resource", ROCKY, {"get_resource": "other"}, "id-other"),
    ("get_attr", ROCKY, {"get_attr": ["other", "ip"]}, "other.ip"),
    ("get_attr path", ROCKY, {"get_attr": ["other", "nested", "a", "b", 1]}, 20),
    ("get_attr missing path gives null", ROCKY, {"get_attr": ["other", "nested", "x"]}, None),
    (
        "get_attr all attributes (2015-10-15+)",
        "2015-10-15",
        {"get_attr": ["other"]},
        {"first": "other.first", "list": [1, 2]},
    ),
    # get_file
    ("get_file", ROCKY, {"get_file": "files/hello.txt"}, "hello\n"),
    # str_replace family
    ("str_replace", ROCKY, {"str_replace": {"template": "a $x b", "params": {"$x": "X"}}}, "a X b"),
    (
        "str_replace longest key first",
        ROCKY,
        {"str_replace": {"template": "$var $var_long", "params": {"$var": "1", "$var_long": "2"}}},
        "1 2",
    ),
    ("str_replace number value", ROCKY, {"str_replace": {"template": "n=N", "params": {"N": 5}}}, "n=5"),
    (
        "str_replace boolean, str() as Heat",
        ROCKY,
        {"str_replace": {"template": "b=B", "params": {"B": True}}},
        "b=True",
    ),
    (
        "str_replace map value as JSON (2015-10-15+)",
        "2015-10-15",
        {"str_replace": {"template": "m=M", "params": {"M": {"k": 1}}}},
        'm={"k": 1}',
    ),
    (
        "str_replace_strict",
        "2017-02-24",
        {"str_replace_strict": {"template": "a-B", "params": {"B": "b"}}},
        "a-b",
    ),
    (
        "str_replace_vstrict",
        "2017-09-01",
        {"str_replace_vstrict": {"template": "a-B", "params": {"B": "b"}}},
        "a-b",
    ),
    # list_join
    ("list_join", ROCKY, {"list_join": [",", ["a", "b"]]}, "a,b"),
    ("list_join several lists (2015-10-15+)", ROCKY, {"list_join": ["-", ["a"], ["b", "c"]]}, "a-b-c"),
    (
        "list_join map as sorted JSON (2015-10-15+)",
        ROCKY,
        {"list_join": [" ", ["x", {"k": 1, "a": 2}]]},
        'x {"a": 2, "k": 1}',
    ),
    ("list_join of a parameter", ROCKY, {"list_join": [";", {"get_param": "zones"}]}, "az1; az2"),
    # str_split
    ("str_split", ROCKY, {"str_split": [",", "a,b,c"]}, ["a", "b", "c"]),
    ("str_split index", ROCKY, {"str_split": [",", "a,b,c", 1]}, "b"),
    # repeat
    (
        "repeat",
        ROCKY,
        {"repeat": {"for_each": {"%p%": ["80", "443"]}, "template": {"port": "%p%"}}},
        [{"port": "80"}, {"port": "443"}],
    ),
    (
        "repeat permutations (default true)",
        ROCKY,
        {"repeat": {"for_each": {"A": ["1", "2"], "B": ["x", "y"]}, "template": "A-B"}},
        ["1-x", "1-y", "2-x", "2-y"],
    ),
    (
        "repeat permutations false (2017-09-01+)",
        ROCKY,
        {
            "repeat": {
                "for_each": {"A": ["1", "2"], "B": ["x", "y"]},
                "template": "A-B",
                "permutations": False,
            }
        },
        ["1-x", "2-y"],
    ),
    # digest
    (
        "digest sha256",
        ROCKY,
        {"digest": ["sha256", "abc"]},
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
    ),
    ("digest md5", ROCKY, {"digest": ["md5", ""]}, "d41d8cd98f00b204e9800998ecf8427e"),
    # resource_facade at the top level
    ("resource_facade deletion_policy", ROCKY, {"resource_facade": "deletion_policy"}, "Delete"),
    ("resource_facade metadata", ROCKY, {"resource_facade": "metadata"}, {}),
    # maps and lists
    ("map_merge later wins", ROCKY, {"map_merge": [{"a": 1, "b": 1}, {"b": 2}]}, {"a": 1, "b": 2}),
    (
        "map_replace keys and values",
        ROCKY,
        {"map_replace": [{"k1": "v1", "k2": "v2"}, {"keys": {"k1": "K1"}, "values": {"v2": "V2"}}]},
        {"K1": "v1", "k2": "V2"},
    ),
    ("list_concat", ROCKY, {"list_concat": [["a"], ["b", "a"]]}, ["a", "b", "a"]),
    ("list_concat_unique", ROCKY, {"list_concat_unique": [["a"], ["b", "a"]]}, ["a", "b"]),
    ("filter", ROCKY, {"filter": [["b", None], ["a", "b", None, "c"]]}, ["a", "c"]),
    ("contains", ROCKY, {"contains": ["az1", {"get_param": "zones"}]}, True),
    (
        "make_url",
        ROCKY,
        {
            "make_url": {
                "scheme": "https",
                "host": "example.com",
                "port": 8443,
                "path": "/a b",
                "query": {"q": "1"},
            }
        },
        "https://example.com:8443/a%20b?q=1",
    ),
    (
        "make_url IPv6 host",
        ROCKY,
        {"make_url": {"scheme": "http", "host": "::1", "path": "/"}},
        "http://[::1]/",
    ),
    ("yaql", ROCKY, {"yaql": {"expression": "$.data.l.max()", "data": {"l": [3, 9, 4]}}}, 9),
    ("equals (in resources only as data)", ROCKY, {"equals": [1, 1]}, {"equals": [1, 1]}),
    # CFN-style functions of 2013-05-23
    ("Fn::Select list", "2013-05-23", {"Fn::Select": ["1", ["a", "b"]]}, "b"),
    ("Fn::Select out of range gives '' (Heat)", "2013-05-23", {"Fn::Select": ["5", ["a"]]}, ""),
    ("Fn::Select map", "2013-05-23", {"Fn::Select": ["k", {"k": "v"}]}, "v"),
    ("Fn::Join", "2013-05-23", {"Fn::Join": [",", ["a", "b"]]}, "a,b"),
    ("Fn::Split", "2013-05-23", {"Fn::Split": [",", "a,b"]}, ["a", "b"]),
    ("Fn::Replace", "2013-05-23", {"Fn::Replace": [{"$x": "X"}, "a $x"]}, "a X"),
    ("Fn::Base64 returns the string (Heat)", "2013-05-23", {"Fn::Base64": "plain"}, "plain"),
    (
        "Fn::MemberListToMap",
        "2013-05-23",
        {"Fn::MemberListToMap": ["Name", "Value", [".member.0.Name=k", ".member.0.Value=v"]]},
        {"k": "v"},
    ),
    ("Ref to a parameter", "2013-05-23", {"Ref": "name"}, "web"),
    ("Ref to a resource", "2013-05-23", {"Ref": "other"}, "id-other"),
    ("Ref to AWS::StackName", "2013-05-23", {"Ref": "AWS::StackName"}, "demo"),
    ("Fn::ResourceFacade", "2013-05-23", {"Fn::ResourceFacade": "DeletionPolicy"}, "Delete"),
    (
        "get_attr then select (2013-05-23)",
        "2013-05-23",
        {"get_attr": ["other", "nested", "a"]},
        {"b": [10, 20]},
    ),
    # version gating: names a version lacks are plain data
    (
        "yaql is data before 2016-10-14",
        "2015-10-15",
        {"yaql": {"expression": "1"}},
        {"yaql": {"expression": "1"}},
    ),
    (
        "str_split is data before 2015-10-15",
        "2015-04-30",
        {"str_split": [",", "a"]},
        {"str_split": [",", "a"]},
    ),
    ("filter is data before 2017-02-24", "2016-10-14", {"filter": [[1], [1]]}, {"filter": [[1], [1]]}),
    ("list_concat is data before 2017-09-01", "2017-02-24", {"list_concat": [[1]]}, {"list_concat": [[1]]}),
]


@pytest.mark.parametrize(
    ("version", "snippet", "expected"), [row[1:] for row in RESOLVES], ids=[row[0] for row in RESOLVES]
)
def test_function_resolves(version: str, snippet: Any, expected: Any) -> None:
    parameters = PARAMETERS if version >= "2013-05-23" else {}
    definition = load_template(
        template_with(version, snippet, parameters), files={"files/hello.txt": "hello\n"}, values={}
    )
    assert value_of(definition) == expected


FAILS: list[tuple[str, str, Any, str]] = [
    ("get_param unknown parameter", ROCKY, {"get_param": "nope"}, "The Parameter (nope) was not defined"),
    ("get_resource unknown resource", ROCKY, {"get_resource": "nope"}, '"nope" is not a resource'),
    ("get_attr without attribute before 2015-10-15", "2015-04-30", {"get_attr": ["other"]}, "get_attr"),
    (
        "get_file missing file",
        ROCKY,
        {"get_file": "files/none.txt"},
        "get_file 'files/none.txt': file not found",
    ),
    ("str_replace without params", ROCKY, {"str_replace": {"template": "x"}}, '"template" and "params"'),
    (
        "str_replace template not a string",
        ROCKY,
        {"str_replace": {"template": [], "params": {}}},
        "must be a string",
    ),
    (
        "str_replace map value before 2015-10-15",
        "2015-04-30",
        {"str_replace": {"template": "M", "params": {"M": {"k": 1}}}},
        "must be strings or numbers",
    ),
    (
        "str_replace_strict missing key",
        "2017-02-24",
        {"str_replace_strict": {"template": "a", "params": {"B": "b"}}},
        "were not found in the template: B",
    ),
    (
        "str_replace_vstrict empty value",
        "2017-09-01",
        {"str_replace_vstrict": {"template": "aB", "params": {"B": ""}}},
        "empty values: B",
    ),
    (
        "list_join several lists before 2015-10-15",
        "2015-04-30",
        {"list_join": [",", ["a"], ["b"]]},
        "list_join",
    ),
    ("list_join not a list", ROCKY, {"list_join": [",", "ab"]}, "must be a list"),
    (
        "list_join number item (Heat)",
        ROCKY,
        {"list_join": [",", ["a", 1]]},
        "must be string, map or list not 1",
    ),
    (
        "list_join map before 2015-10-15",
        "2015-04-30",
        {"list_join": [",", [{"a": 1}]]},
        "must be strings not",
    ),
    ("str_split bad index", ROCKY, {"str_split": [",", "a,b", 5]}, "should be between 0 and 1"),
    ("repeat without for_each", ROCKY, {"repeat": {"template": "x"}}, '"for_each" and "template"'),
    (
        "repeat permutations before 2017-09-01",
        "2016-10-14",
        {"repeat": {"for_each": {"A": ["1"]}, "template": "A", "permutations": True}},
        "Unknown keys",
    ),
    (
        "repeat unequal loops without permutations",
        ROCKY,
        {"repeat": {"for_each": {"A": ["1"], "B": ["x", "y"]}, "template": "A", "permutations": False}},
        "same length",
    ),
    ("digest bad algorithm", ROCKY, {"digest": ["crc32", "x"]}, "Algorithm must be one of"),
    ("resource_facade bad key", ROCKY, {"resource_facade": "name"}, "resource_facade"),
    ("map_merge non map", ROCKY, {"map_merge": [{"a": 1}, "b"]}, "must be maps"),
    ("map_replace collision", ROCKY, {"map_replace": [{"a": 1, "b": 2}, {"keys": {"a": "b"}}]}, "collides"),
    ("list_concat non list", ROCKY, {"list_concat": [["a"], "b"]}, "must be lists"),
    ("contains non sequence", ROCKY, {"contains": ["a", 1]}, "must be a sequence"),
    ("make_url unknown key", ROCKY, {"make_url": {"scheme": "http", "hostname": "x"}}, "Unknown arguments"),
    ("make_url bad port", ROCKY, {"make_url": {"host": "x", "port": 99999}}, "out of range"),
    ("yaql bad expression", ROCKY, {"yaql": {"expression": "$.data.(", "data": {}}}, "Bad expression"),
    ("yaql memory quota", ROCKY, {"yaql": {"expression": "range(1000000).list()", "data": {}}}, "yaql"),
    (
        "yaql work bound",
        ROCKY,
        {"yaql": {"expression": "range(150).select(range(150).sum()).sum()", "data": {}}},
        "needs more than 1000000 steps",
    ),
    ("if with two arguments before wallaby", ROCKY, {"if": [True, "a"]}, '"if"'),
    ("if with an unknown condition", ROCKY, {"if": ["nope", "a", "b"]}, "Invalid condition 'nope'"),
    ("Fn::Join after 2013-05-23", "2014-10-16", {"Fn::Join": [",", ["a"]]}, '"Fn::Join" is not supported'),
    (
        "Fn::Select after 2015-04-30",
        "2015-10-15",
        {"Fn::Select": [0, ["a"]]},
        '"Fn::Select" is not supported',
    ),
    ("Ref after 2013-05-23", "2016-10-14", {"Ref": "name"}, '"Ref" is not supported'),
]


@pytest.mark.parametrize(
    ("version", "snippet", "message"), [row[1:] for row in FAILS], ids=[row[0] for row in FAILS]
)
def test_function_error_is_reported_at_its_line(version: str, snippet: Any, message: str) -> None:
    with pytest.raises(TemplateError) as raised:
        load_template(template_with(version, snippet, PARAMETERS))
    assert message in str(raised.value)
    problem = raised.value.problems[0]
    assert (problem.file, problem.line > 0) == ("t.yaml", True)
