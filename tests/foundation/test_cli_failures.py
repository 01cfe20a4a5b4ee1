"""The CLI answers: an expected failure is one line naming the problem, exit 1, no traceback.

Each case runs the real `reconciler` command in a child process (a fresh HOME, so nothing of the
machine's user leaks in): a bad database URL, a PostgreSQL that refuses connections, a broken or
incomplete clouds.yaml, a port already taken. `--debug` brings the traceback back. Commands
without `--database` read the service's database, as its settings file or state directory names it.
"""

from __future__ import annotations

import io
import os
import socket
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from reconciler.cli.apply_progress import ApplyProgress
from reconciler.engine.report import ActionCounts, StackReport
from state import StackStatus
from tests.daemon.gitops_world import SAMPLES
from tests.source.git_repos import commit_files, init_repository

COMMAND_SECONDS = 120.0


def reconciler(
    args: list[str], home: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    environ = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "XDG_STATE_HOME": str(home / "state"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-m", "reconciler.cli.main", *args],
        capture_output=True,
        text=True,
        env=environ,
        timeout=COMMAND_SECONDS,
        check=False,
    )


def one_line_error(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    return lines[0]


def test_a_bad_database_url_is_one_line(tmp_path: Path) -> None:
    line = one_line_error(reconciler(["outputs", "app", "--database", "nope://x"], tmp_path))
    assert "unsupported database backend 'nope'" in line
    assert "--database" in line


def test_a_refused_postgresql_connection_is_one_line(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"postgresql+psycopg://reconciler@127.0.0.1:{port}/reconciler"

    line = one_line_error(reconciler(["outputs", "app", "--database", url], tmp_path))

    assert "cannot use the state database" in line
    assert "Connection refused" in line


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    result = reconciler(["--debug", "outputs", "app", "--database", "nope://x"], tmp_path)
    assert result.returncode == 1
    assert "Traceback" in result.stderr


@pytest.fixture
def prod_repo(tmp_path: Path) -> Path:
    """The sample stacks on a cloud named `prod`, committed."""
    repo = init_repository(tmp_path / "repo")
    files = {
        str(path.relative_to(SAMPLES)): path.read_text() for path in SAMPLES.rglob("*") if path.is_file()
    }
    files["reconciler.yaml"] = files["reconciler.yaml"].replace("cloud: sim", "cloud: prod")
    commit_files(repo, files, "The sample on prod")
    return tmp_path / "repo"


@pytest.mark.parametrize(
    ("clouds_yaml", "named"),
    [
        ("clouds:\n  prod: [unclosed\n", "line 3: not valid YAML"),
        ("clouds:\n  staging: {}\n", "no cloud named 'prod' (it has: staging)"),
        ("- just a list\n", "expected a `clouds:` mapping"),
    ],
)
def test_a_broken_clouds_yaml_is_one_line_naming_the_file(
    prod_repo: Path, tmp_path: Path, clouds_yaml: str, named: str
) -> None:
    (tmp_path / "clouds.yaml").write_text(clouds_yaml)
    env = {"OS_CLIENT_CONFIG_FILE": str(tmp_path / "clouds.yaml")}

    line = one_line_error(
        reconciler(
            ["apply", "--repo", str(prod_repo), "--database", f"sqlite:///{tmp_path / 's.sqlite'}"],
            tmp_path,
            env,
        )
    )

    assert str(tmp_path / "clouds.yaml") in line
    assert named in line


@pytest.fixture
def taken_port() -> Iterator[int]:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_port_in_use_is_one_line(tmp_path: Path, taken_port: int) -> None:
    init_repository(tmp_path / "repo")
    args = ["run", "--repo", str(tmp_path / "repo"), "--state-dir", str(tmp_path / "state")]

    line = one_line_error(reconciler([*args, "--listen", f"127.0.0.1:{taken_port}"], tmp_path))

    assert f"cannot listen on 127.0.0.1:{taken_port}" in line
    assert "--listen" in line


def test_outputs_reads_the_database_of_the_services_state_directory(tmp_path: Path) -> None:
    repo = init_repository(tmp_path / "repo")
    commit_files(
        repo,
        {str(p.relative_to(SAMPLES)): p.read_text() for p in SAMPLES.rglob("*") if p.is_file()},
        "The sample",
    )
    service_state = tmp_path / "var-lib-reconciler"
    config = tmp_path / "reconciler.toml"
    config.write_text(f'[daemon]\nstate_dir = "{service_state}"\n')
    service = {"RECONCILER_CONFIG": str(config)}
    applied = reconciler(["apply", "--repo", str(tmp_path / "repo")], tmp_path, service)
    assert applied.returncode == 0, applied.stdout + applied.stderr

    as_service = reconciler(["outputs", "network", "--format", "json"], tmp_path, service)
    by_state_dir = reconciler(["outputs", "network"], tmp_path, {"RECONCILER_STATE_DIR": str(service_state)})
    elsewhere = reconciler(["outputs", "network"], tmp_path)

    assert (service_state / "state.sqlite").exists()
    assert as_service.returncode == 0, as_service.stderr
    assert '"net_id"' in as_service.stdout
    assert by_state_dir.returncode == 0 and "net_id" in by_state_dir.stdout
    assert "no state database at" in one_line_error(elsewhere)


def _report(created: int) -> StackReport:
    return StackReport(
        "app", StackStatus.PROGRESSING, "c" * 40, 1, ActionCounts(created=created), resources=created
    )


def test_apply_progress_prints_plain_lines_when_counts_change_off_a_terminal() -> None:
    now = [0.0]
    created = [0]
    out = io.StringIO()
    progress = ApplyProgress(lambda _name: _report(created[0]), out, terminal=False, monotonic=lambda: now[0])

    for step in range(1, 31):  # one pass a second for 30 s, a resource made each pass
        now[0], created[0] = float(step), step
        progress(["app"])

    lines = out.getvalue().splitlines()
    assert lines[0] == "app: PROGRESSING (created 5, updated 0, replaced 0, deleted 0; 5 resources)"
    assert len(lines) == 6  # every 5 s, not every pass


def test_apply_progress_redraws_in_place_on_a_terminal() -> None:
    now = [0.0]
    out = io.StringIO()
    progress = ApplyProgress(lambda _name: _report(3), out, terminal=True, monotonic=lambda: now[0])

    for step in range(1, 4):
        now[0] = float(step)
        progress(["app"])
    progress.done()

    assert out.getvalue().count("\x1b[1F") == 3  # drawn, then moved up over twice, then cleared
    assert "app: PROGRESSING (created 3" in out.getvalue()
