"""The chaos suite's audit counts each kind of defect, so a clean audit after a run means something."""

from __future__ import annotations

from bench.chaos.audit import CloudItem, audit

WANTED = {"ports": frozenset({"a-port", "b-port"}), "volumes": frozenset({"a-vol"})}


def _item(kind: str, name: str, marks: tuple[str, ...] = ("reconciler-managed",), id_: str = "") -> CloudItem:
    return CloudItem(kind, id_ or f"{name}-{len(marks)}", name, marks)


def test_a_cloud_holding_exactly_what_is_wanted_is_clean() -> None:
    inventory = {
        "ports": [
            _item("ports", "a-port", ("reconciler:x:a:1",)),
            _item("ports", "b-port", ("reconciler:x:b:2",)),
        ],
        "volumes": [_item("volumes", "a-vol", ("reconciler-marker=reconciler:x:v:3",))],
    }
    result = audit(inventory, WANTED)
    assert result.clean
    assert result.total_duplicates == result.total_orphans == result.total_missing == 0


def test_two_resources_with_one_name_are_a_duplicate_and_one_marker_twice_is_counted_apart() -> None:
    inventory = {
        "ports": [
            _item("ports", "a-port", ("reconciler:x:a:1",), "p1"),
            _item("ports", "a-port", ("reconciler:x:a:1",), "p2"),
            _item("ports", "a-port", ("reconciler:x:a:9",), "p3"),
            _item("ports", "b-port", ("reconciler:x:b:2",), "p4"),
        ],
        "volumes": [_item("volumes", "a-vol")],
    }
    result = audit(inventory, WANTED)
    assert result.duplicates["ports"] == 2
    assert result.same_marker_duplicates["ports"] == 1
    assert result.surplus["ports"] == 2
    assert result.examples["duplicates"] == ("a-port",)
    assert not result.clean


def test_a_marked_resource_no_commit_wants_is_an_orphan_an_unmarked_one_is_not() -> None:
    inventory = {
        "ports": [
            _item("ports", "a-port"),
            _item("ports", "b-port"),
            _item("ports", "old-port"),
            _item("ports", "someone-elses", marks=()),
        ],
        "volumes": [_item("volumes", "a-vol")],
    }
    result = audit(inventory, WANTED)
    assert result.orphans == {"ports": 1, "volumes": 0}
    assert result.unmarked["ports"] == 1
    assert result.examples["orphans"] == ("old-port",)


def test_a_wanted_name_the_cloud_lacks_is_missing() -> None:
    result = audit({"ports": [_item("ports", "a-port")]}, WANTED)
    assert result.missing == {"ports": 1, "volumes": 1}
    assert result.examples["missing"] == ("b-port", "a-vol")


def test_marks_are_read_from_tags_and_metadata_as_the_list_apis_show_them() -> None:
    port = CloudItem.from_body("ports", {"id": "1", "name": "p", "tags": ["reconciler-managed", "user-tag"]})
    volume = CloudItem.from_body(
        "volumes", {"id": "2", "name": "v", "metadata": {"reconciler-marker": "reconciler:s:v:7", "a": "b"}}
    )
    plain = CloudItem.from_body("servers", {"id": "3", "name": "s", "tags": None, "metadata": {}})
    assert port.marks == ("reconciler-managed",)
    assert volume.marks == ("reconciler-marker=reconciler:s:v:7",)
    assert not plain.marked
