"""Keystone entities through the OpenStack provider against the simulated cloud's HTTP face: each
identity type Heat has is created with its marker, read back in one list, changed, found again by
its marker after a crash, repaired after drift and deleted; users and groups get their roles and
memberships; a user's password is sent and never read back or shown in an error.
"""

from __future__ import annotations

import logging

import pytest

from providers.interface import LiveResource, Marker, NotFound, Permanent, Retryable
from tests.openstack.conftest import CloudUnderTest
from tests.openstack.scenario import marker


def test_a_project_carries_its_marker_in_tags_and_keeps_the_template_tags(sim: CloudUnderTest) -> None:
    provider = sim.provider
    the_marker = marker("project", stack="nested/child")  # a "/" Keystone tags cannot hold
    project = provider.create(
        "OS::Keystone::Project", {"name": "team-a", "description": "A", "tags": ["prod"]}, the_marker
    )
    assert project.properties["tags"] == ["prod"]
    assert project.properties["domain"] == "default"
    assert found_id(provider.find_by_marker("OS::Keystone::Project", the_marker)) == project.physical_id

    changed = provider.update(
        "OS::Keystone::Project",
        project.physical_id,
        {"name": "team-a", "description": "B", "tags": ["dev"], "enabled": False},
        frozenset({"description", "tags", "enabled"}),
    )
    assert (changed.properties["description"], changed.properties["tags"], changed.properties["enabled"]) == (
        "B",
        ["dev"],
        False,
    )
    assert provider.find_by_marker("OS::Keystone::Project", the_marker) is not None

    child = provider.create("OS::Keystone::Project", {"name": "child", "parent": "team-a"}, marker("child"))
    assert child.properties["parent"] == project.physical_id
    with pytest.raises(Permanent, match="not a leaf"):
        provider.delete("OS::Keystone::Project", project.physical_id)
    provider.delete("OS::Keystone::Project", child.physical_id)
    provider.delete("OS::Keystone::Project", project.physical_id)
    assert provider.observe("OS::Keystone::Project", [project.physical_id]) == {}


def test_a_user_gets_its_groups_and_roles_and_its_password_stays_hidden(
    sim: CloudUnderTest, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    provider = sim.provider
    secret = "Sup3r-secret-pw"
    role = provider.create("OS::Keystone::Role", {"name": "observer"}, marker("role"))
    project = provider.create("OS::Keystone::Project", {"name": "ops"}, marker("project"))
    group = provider.create(
        "OS::Keystone::Group",
        {"name": "admins", "domain": "default", "roles": [{"role": "observer", "domain": "default"}]},
        marker("group"),
    )
    user = provider.create(
        "OS::Keystone::User",
        {
            "name": "alice",
            "password": secret,
            "email": "a@example.org",
            "default_project": "ops",
            "groups": ["admins"],
            "roles": [{"role": "observer", "project": "ops"}],
        },
        marker("user"),
    )
    assert user.properties["roles"] == [["project", project.physical_id, role.physical_id]]
    assert group.properties["roles"] == [["domain", "default", role.physical_id]]
    assert user.properties["default_project"] == project.physical_id
    assert "password" not in user.properties and secret not in repr(user)

    changed = provider.update(
        "OS::Keystone::User",
        user.physical_id,
        {
            "name": "alice",
            "password": "an0ther",
            "groups": [],
            "roles": [{"role": "member", "project": "ops"}],
        },
        frozenset({"password", "groups", "roles"}),
    )
    member = sim.cloud.list("roles", name="member")[0]["id"]
    assert changed.properties["roles"] == [["project", project.physical_id, member]]
    assert sim.cloud.list("group_memberships") == []

    with pytest.raises(Retryable) as refused:  # Keystone's 409: the name is in use
        provider.create("OS::Keystone::User", {"name": "alice", "password": secret}, marker("twin"))
    assert refused.value.conflict and "alice" in str(refused.value)
    assert secret not in str(refused.value)
    assert secret not in caplog.text and "an0ther" not in caplog.text

    provider.delete("OS::Keystone::User", user.physical_id)
    assert sim.cloud.list("role_assignments", where={"user": {"id": user.physical_id}}) == []


def test_observation_is_one_list_and_repairs_drift(sim: CloudUnderTest) -> None:
    provider = sim.provider
    groups = [
        provider.create("OS::Keystone::Group", {"name": f"g{index}"}, marker(f"g{index}"))
        for index in range(5)
    ]
    before = len(sim.log.requests)
    seen = provider.observe("OS::Keystone::Group", [group.physical_id for group in groups])
    assert len(seen) == 5
    assert len(sim.log.requests) - before == 2  # the groups, and every grant of every group

    sim.cloud.change("groups", groups[0].physical_id, {"description": "edited by hand"})
    drifted = provider.observe("OS::Keystone::Group", [groups[0].physical_id])[groups[0].physical_id]
    assert drifted.properties["description"] == "edited by hand"
    repaired = provider.update(
        "OS::Keystone::Group",
        groups[0].physical_id,
        {"name": "g0", "description": ""},
        frozenset({"description"}),
    )
    assert repaired.properties["description"] == ""


def test_role_assignments_grant_and_revoke_only_their_own_roles(sim: CloudUnderTest) -> None:
    provider = sim.provider
    provider.create("OS::Keystone::Project", {"name": "p1"}, marker("p1"))
    user = provider.create(
        "OS::Keystone::User", {"name": "bob", "roles": [{"role": "reader", "project": "p1"}]}, marker("bob")
    )
    the_marker = marker("bob_roles")
    assignment = provider.create(
        "OS::Keystone::UserRoleAssignment",
        {
            "user": "bob",
            "roles": [{"role": "member", "project": "p1"}, {"role": "admin", "domain": "default"}],
        },
        the_marker,
    )
    assert len(assignment.properties["roles"]) == 2
    assert (
        found_id(provider.find_by_marker("OS::Keystone::UserRoleAssignment", the_marker))
        == assignment.physical_id
    )

    member_grant = next(
        entry
        for entry in sim.cloud.list("role_assignments")
        if "project" in entry["scope"]
        and entry["role"]["id"] == sim.cloud.list("roles", name="member")[0]["id"]
    )
    sim.cloud.vanish("role_assignments", member_grant["id"])
    drifted = provider.observe("OS::Keystone::UserRoleAssignment", [assignment.physical_id])
    assert len(drifted[assignment.physical_id].properties["roles"]) == 1
    provider.update(
        "OS::Keystone::UserRoleAssignment",
        assignment.physical_id,
        {"user": "bob", "roles": [{"role": "member", "project": "p1"}]},
        frozenset({"roles"}),
    )
    provider.delete("OS::Keystone::UserRoleAssignment", assignment.physical_id)
    left = provider.observe("OS::Keystone::User", [user.physical_id])[user.physical_id]
    reader = sim.cloud.list("roles", name="reader")[0]["id"]
    assert [grant[2] for grant in left.properties["roles"]] == [reader]

    group = provider.create("OS::Keystone::Group", {"name": "crew"}, marker("crew"))
    group_assignment = provider.create(
        "OS::Keystone::GroupRoleAssignment",
        {"group": group.physical_id, "roles": [{"role": "reader", "domain": "default"}]},
        marker("crew_roles"),
    )
    assert provider.observe("OS::Keystone::GroupRoleAssignment", [group_assignment.physical_id])
    provider.delete("OS::Keystone::Group", group.physical_id)
    assert provider.observe("OS::Keystone::GroupRoleAssignment", [group_assignment.physical_id]) == {}


def test_regions_services_and_endpoints(sim: CloudUnderTest) -> None:
    provider = sim.provider
    parent = provider.create("OS::Keystone::Region", {"id": "north", "description": "N"}, marker("north"))
    child = provider.create(
        "OS::Keystone::Region", {"id": "north-1", "parent_region": "north"}, marker("north1")
    )
    assert (parent.physical_id, child.properties["parent_region"]) == ("north", "north")
    service = provider.create("OS::Keystone::Service", {"name": "dns", "type": "dns"}, marker("svc"))
    endpoints = [
        provider.create(
            "OS::Keystone::Endpoint",
            {
                "service": service.physical_id,
                "interface": interface,
                "url": f"http://{interface}:9001",
                "region": "north-1",
            },
            marker(f"ep_{interface}"),
        )
        for interface in ("public", "internal", "admin")
    ]
    moved = provider.update(
        "OS::Keystone::Endpoint",
        endpoints[0].physical_id,
        {
            "service": service.physical_id,
            "interface": "public",
            "url": "http://elsewhere:9001",
            "region": "north-1",
        },
        frozenset({"url"}),
    )
    assert moved.properties["url"] == "http://elsewhere:9001"
    assert provider.find_by_marker("OS::Keystone::Endpoint", marker_of(endpoints[1])) is not None
    with pytest.raises(Permanent, match="associated endpoints"):
        provider.delete("OS::Keystone::Region", "north-1")
    provider.delete("OS::Keystone::Service", service.physical_id)
    assert provider.observe("OS::Keystone::Endpoint", [endpoint.physical_id for endpoint in endpoints]) == {}
    provider.delete("OS::Keystone::Region", "north-1")
    provider.delete("OS::Keystone::Region", "north")
    with pytest.raises(NotFound):
        provider.delete("OS::Keystone::Region", "north")


def test_a_domain_and_a_domain_role(sim: CloudUnderTest) -> None:
    provider = sim.provider
    domain = provider.create(
        "OS::Keystone::Domain", {"name": "partners", "description": "P"}, marker("domain")
    )
    role = provider.create("OS::Keystone::Role", {"name": "auditor", "domain": "partners"}, marker("role"))
    assert role.properties["domain"] == domain.physical_id
    provider.update(
        "OS::Keystone::Domain",
        domain.physical_id,
        {"name": "partners", "enabled": False},
        frozenset({"enabled"}),
    )
    assert (
        provider.observe("OS::Keystone::Domain", [domain.physical_id])[domain.physical_id].properties[
            "enabled"
        ]
        is False
    )


def marker_of(live: object) -> Marker:
    found = getattr(live, "marker", None)
    assert isinstance(found, Marker)
    return found


def found_id(live: LiveResource | None) -> str:
    assert live is not None
    return live.physical_id
