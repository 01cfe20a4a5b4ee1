"""End to end on real git repositories: commits become notes, PR heads get plans, bad commits are INVALID.

Each scenario: given the sample repository and a daemon on SQLite and the simulated cloud, when
something is committed, then the notes in git say what happened (and the cloud agrees).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from prometheus_client.parser import text_string_to_metric_families

from reconciler.cli.main import cli
from reconciler.source.note_lines import REPOSITORY_SCOPE
from reconciler.source.notes_store import NotesStore, Pushed
from tests.daemon.gitops_world import DaemonWorld, notes_on, sample_into, sample_repository
from tests.source.git_repos import bare_remote, clone, commit_files

NETWORK_RESOURCES = 5  # net, subnet, router, router_interface, web_security_group


@pytest.fixture
def world(tmp_path: Path) -> Iterator[tuple[DaemonWorld, Path]]:
    sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        yield daemon, tmp_path / "repo"
    finally:
        daemon.close()


def test_a_commit_converges_and_its_note_says_so_with_the_counts(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha

    daemon.follow()
    reports = daemon.converge(["network", "app"], first)
    daemon.publish()

    assert {name: str(report.status) for name, report in reports.items()} == {
        "network": "CONVERGED",
        "app": "CONVERGED",
    }
    notes = notes_on(repo, first)
    assert notes["network"].status == "CONVERGED"
    assert notes["network"].counts["created"] == NETWORK_RESOURCES
    assert notes["app"].status == "CONVERGED"
    assert notes["app"].counts["created"] == reports["app"].counts.created > 0
    assert str(path) in daemon.daemon.repository.location
    # app's admin_password is hidden (its default is "change-me-please"): never in a note
    assert "change-me-please" not in repo.git.notes("--ref=refs/notes/reconciler", "show", first)


def test_a_second_commit_touches_only_its_stack(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    prod = (path / "environments" / "prod.yaml").read_text().replace("node_count: 2", "node_count: 3")
    documents = daemon.daemon.gitops.documents
    parsed_before = documents.parses

    second = commit_files(repo, {"environments/prod.yaml": prod}, "Three app nodes")
    daemon.follow()
    reports = daemon.converge(["app"], second)
    daemon.publish()

    assert str(reports["app"].status) == "CONVERGED"
    assert documents.parses == parsed_before  # app's templates were not touched: none parsed again
    assert documents.hits > 0
    notes = notes_on(repo, second)
    assert set(notes) == {"app"}  # network's inputs did not change: not disturbed, not noted
    assert notes["app"].counts["created"] == 0
    assert daemon.daemon.engine.report("network").commit == first


def test_a_broken_template_is_invalid_with_file_and_line_and_the_cloud_is_untouched(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    before = daemon.cloud_counts()
    template = (path / "stacks" / "network" / "template.yaml").read_text()
    broken = template.replace("cidr: {get_param: cidr}", "cidr: {get_param: [cidr}")

    bad = commit_files(repo, {"stacks/network/template.yaml": broken}, "A typo")
    daemon.follow()
    daemon.daemon.gitops.converge()
    daemon.publish()

    notes = notes_on(repo, bad)
    assert notes["network"].status == "INVALID"
    problem = notes["network"].problems[0]
    assert problem.file == "stacks/network/template.yaml"
    assert problem.line is not None and problem.line > 0
    report = daemon.daemon.engine.report("network")
    assert str(report.status) == "INVALID"
    newest = daemon.daemon.store.newest_generation("network")
    assert newest is not None and newest.commit_sha == first  # the last good generation is kept
    assert daemon.cloud_counts() == before


def test_a_stack_wired_to_a_missing_output_is_invalid_naming_the_stack_and_output_in_plan_and_note(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    config = (path / "reconciler.yaml").read_text().replace("output: subnet_id}", "output: no_such_output}")
    repo.create_head("feature/miswired").checkout()
    head = commit_files(repo, {"reconciler.yaml": config}, "Wire app to an output network does not have")
    repo.heads["main"].checkout()
    daemon.follow()  # planned as a pull request's head
    repo.git.merge("--ff-only", "feature/miswired")
    daemon.follow()  # then merged: converged as the tracked branch's commit
    daemon.daemon.gitops.converge()
    daemon.publish()

    expected = "stack 'app' parameter 'subnet_id': stack 'network' has no output 'no_such_output'"
    for note in (notes_on(repo, head, kind="plan")["app"], notes_on(repo, head)["app"]):
        assert note.status == "INVALID"
        assert [(problem.file, problem.message) for problem in note.problems] == [
            ("reconciler.yaml", expected)
        ]
    newest = daemon.daemon.store.newest_generation("app")
    assert newest is not None and newest.commit_sha == first  # the last good generation is kept


def test_a_template_reading_its_stack_name_gets_the_stack_name_as_apply_gives_it(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    template = (path / "stacks" / "network" / "template.yaml").read_text()
    named = template.replace("name: app-net", "name: {get_param: OS::stack_name}").replace(
        "outputs:", "outputs:\n  stack_name:\n    value: {get_param: OS::stack_name}"
    )
    commit = commit_files(repo, {"stacks/network/template.yaml": named}, "Name the net after its stack")

    daemon.follow()
    reports = daemon.converge(["network"], commit)

    assert str(reports["network"].status) == "CONVERGED"
    assert daemon.daemon.engine.outputs("network")["stack_name"] == "network"


def test_a_broken_reconciler_yaml_makes_the_whole_commit_invalid(world: tuple[DaemonWorld, Path]) -> None:
    daemon, _path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)

    bad = commit_files(repo, {"reconciler.yaml": "stacks:\n  network: [not, a, mapping\n"}, "Broken config")
    daemon.follow()
    daemon.publish()

    notes = notes_on(repo, bad)
    assert notes[REPOSITORY_SCOPE].status == "INVALID"
    assert notes[REPOSITORY_SCOPE].problems[0].file == "reconciler.yaml"
    assert daemon.daemon.engine.report("network").commit == first


def test_a_pull_request_head_gets_a_plan_note_with_the_actions(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    template = (path / "stacks" / "network" / "template.yaml").read_text()
    changed = template.replace("outputs:", "  marker:\n    type: OS::Heat::None\n\noutputs:").replace(
        "name: app-net", "name: app-net-renamed"
    )
    config = (path / "reconciler.yaml").read_text().replace("cidr: 10.0.0.0/24", "cidr: 10.0.1.0/24")
    repo.create_head("feature/network").checkout()

    head = commit_files(
        repo,
        {"stacks/network/template.yaml": changed, "reconciler.yaml": config},
        "Rename the net, move the subnet, add a marker",
    )
    repo.heads["main"].checkout()
    daemon.follow()
    daemon.publish()

    plans = notes_on(repo, head, kind="plan")
    assert set(plans) == {"network"}  # app's files and entry did not change
    plan = plans["network"].plan
    assert plan is not None
    assert [entry.resource for entry in plan.create] == ["marker"]
    assert [entry.resource for entry in plan.update] == ["net"]  # a network's name changes in place
    assert [(r.resource, r.because) for r in plan.replace] == [
        ("subnet", ("cidr",)),
        ("router_interface", ("subnet",)),  # it takes the new subnet's id, which it cannot in place
    ]
    assert plan.replace[1].reads == ("subnet",)
    assert plan.delete == ()
    assert plan.unchanged == 2  # router, web_security_group
    assert daemon.daemon.engine.report("network").commit == first  # nothing applied
    comment = CliRunner().invoke(cli, ["status", head, "--repo", str(path), "--format", "markdown"])
    assert "**replace** `subnet (replaced because of: cidr)`" in comment.output


def test_two_daemons_noting_one_remote_both_notes_survive(tmp_path: Path) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    author = clone(remote.working_dir, tmp_path / "author")
    sample_into(author)
    commit = author.head.commit.hexsha
    author.git.push("origin", "main")
    url = f"file://{remote.working_dir}"  # a URL: each daemon clones it into its own cache
    one = DaemonWorld(url, tmp_path / "state-one", worker="daemon-one")
    two = DaemonWorld(url, tmp_path / "state-two", worker="daemon-two")
    try:
        for daemon in (one, two):
            daemon.follow()
            daemon.converge(["network", "app"], commit)
        assert isinstance(one.publish(), Pushed)
        assert isinstance(two.publish(), Pushed)  # merged what one pushed, then pushed
    finally:
        one.close()
        two.close()

    author.git.fetch("origin", "refs/notes/reconciler:refs/notes/reconciler")
    lines = NotesStore(author).read(commit)
    assert {(line.writer, line.stack) for line in lines if line.status == "CONVERGED"} == {
        ("daemon-one", "network"),
        ("daemon-one", "app"),
        ("daemon-two", "network"),
        ("daemon-two", "app"),
    }


def test_auto_apply_off_plans_the_tracked_commit_and_applies_nothing(tmp_path: Path) -> None:
    repo, _first = sample_repository(tmp_path / "repo")
    config = (
        (tmp_path / "repo" / "reconciler.yaml").read_text().replace("auto_apply: true", "auto_apply: false")
    )
    commit = commit_files(repo, {"reconciler.yaml": config}, "Plan only")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state")
    try:
        daemon.follow()
        daemon.daemon.gitops.converge()
        daemon.publish()
        counts = daemon.cloud_counts()
    finally:
        daemon.close()

    plans = notes_on(repo, commit, kind="plan")
    network = plans["network"].plan
    assert network is not None
    assert len(network.create) == NETWORK_RESOURCES
    convergence = notes_on(repo, commit)
    assert convergence["network"].status == "PENDING"
    assert convergence["network"].failures == ("auto_apply is off: planned, not applied",)
    # app reads network's outputs, which do not exist while network is not applied
    assert convergence["app"].status == "PENDING"
    assert convergence["app"].failures == ("waiting for outputs of network",)
    assert counts["routers"] == 0 and counts["servers"] == 0


def test_metrics_count_stacks_resources_and_cloud_calls_after_a_convergence(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, _path = world
    first = daemon.daemon.repository.repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)

    samples = {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(daemon.daemon.metrics.render().decode())
        for sample in family.samples
    }

    assert samples[("reconciler_stacks", (("status", "CONVERGED"),))] == 2
    assert sum(value for (name, _labels), value in samples.items() if name == "reconciler_resources") >= 8
    network_creates = (("operation", "create"), ("outcome", "ok"), ("service", "network"))
    assert samples[("reconciler_cloud_calls_total", network_creates)] >= NETWORK_RESOURCES
    assert samples[("reconciler_shards_held", ())] == 64


def test_a_stack_removed_from_reconciler_yaml_is_deleted_and_noted(world: tuple[DaemonWorld, Path]) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    config = (path / "reconciler.yaml").read_text()
    without_app = config[: config.index("  app:")]

    removal = commit_files(repo, {"reconciler.yaml": without_app}, "Retire the app")
    daemon.follow()
    for _attempt in range(2000):
        daemon.daemon.gitops.converge()
        if not daemon.daemon.gitops.removing:
            break
    daemon.publish()

    notes = notes_on(repo, removal)
    assert notes["app"].status == "CONVERGED"
    reason = "removed from reconciler.yaml; its resources deleted or kept by deletion policy"
    assert notes["app"].failures == (reason,)
    counts = daemon.cloud_counts()
    assert (counts["servers"], counts["volumes"], counts["keypairs"]) == (0, 0, 0)
    assert counts["routers"] == 1  # network stays


def test_a_commit_arriving_mid_convergence_supersedes_the_one_in_progress(tmp_path: Path) -> None:
    repo, first = sample_repository(tmp_path / "repo")
    daemon = DaemonWorld(str(tmp_path / "repo"), tmp_path / "state", sim_latency="0.05")
    try:
        daemon.follow()
        daemon.converge(["network"], first)  # app starts once network's outputs exist ...
        daemon.daemon.gitops.converge()  # ... and is now under way at the first commit
        assert str(daemon.daemon.engine.report("app").status) == "PROGRESSING"
        prod = (tmp_path / "repo" / "environments" / "prod.yaml").read_text()

        second = commit_files(
            repo, {"environments/prod.yaml": prod.replace("node_count: 2", "node_count: 1")}, "One"
        )
        daemon.follow()
        reports = daemon.converge(["app"], second)
        daemon.publish()
    finally:
        daemon.close()

    assert str(reports["app"].status) == "CONVERGED"
    assert notes_on(repo, first)["app"].status == "SUPERSEDED"
    assert notes_on(repo, first)["network"].status == "CONVERGED"
    assert notes_on(repo, second)["app"].status == "CONVERGED"


def test_a_stack_reading_an_invalid_stacks_outputs_uses_its_last_good_ones(
    world: tuple[DaemonWorld, Path],
) -> None:
    daemon, path = world
    repo = daemon.daemon.repository.repo
    first = repo.head.commit.hexsha
    daemon.follow()
    daemon.converge(["network", "app"], first)
    template = (path / "stacks" / "network" / "template.yaml").read_text()
    prod = (path / "environments" / "prod.yaml").read_text()

    both = commit_files(
        repo,
        {
            "stacks/network/template.yaml": template.replace("type: OS::Neutron::Net", "type: [broken"),
            "environments/prod.yaml": prod.replace("node_count: 2", "node_count: 3"),
        },
        "Break the network, grow the app",
    )
    daemon.follow()
    reports = daemon.converge(["app"], both)
    daemon.publish()

    notes = notes_on(repo, both)
    assert notes["network"].status == "INVALID"
    assert notes["app"].status == "CONVERGED"
    assert str(reports["app"].status) == "CONVERGED"
    assert daemon.cloud_counts()["servers"] == 3
