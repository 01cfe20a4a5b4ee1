"""Running one deployment: heat-config's `script` hook contract, and a stand-in for other groups.

The script hook: the config is written to a file and executed; every input is an environment
variable (names as given, values as text, JSON for anything but a string); `heat_outputs_path`
names a path prefix where the script writes each declared output to `<prefix>.<name>`. The result
is what heat-config-notify sends: `deploy_stdout`, `deploy_stderr`, `deploy_status_code` and the
outputs read back. A script past its time limit is killed, with every process of its process
group, and reported with status code 124.

Other groups (puppet, ansible, chef, salt, os-apply-config, ...) are delivered to the stand-in,
which answers with status 0 and says in `deploy_stdout` that nothing applied them.
"""

from __future__ import annotations

import errno
import json
import os
import signal
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from reconciler.agent.output_tails import file_tail
from reconciler.agent.process_exits import exit_status
from reconciler.agent.process_starts import started_apart, write_script

TIMED_OUT = 124  # the status `timeout(1)` gives a command it stopped


class RunInterrupted(Exception):
    """The run was cut short by its machine going away (its server deleted, its agents stopping):
    it has no result to report, and is run again by the agent that next finds it not run."""


class Hook(Protocol):
    def __call__(self, deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]: ...


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def script_hook(
    deployment: Mapping[str, Any],
    workdir: Path,
    time_limit: float,
    *,
    sandbox: Callable[[str], Sequence[str]] | None = None,
    start: Start | None = None,
) -> dict[str, Any]:
    """Run the deployment's config as a script and collect what it produced.

    `sandbox` gives, for the run's directory, the command put before the script's (see
    `reconciler.agent.sandbox`); `start`, instead, starts the script where it is to run (a
    resident machine's keeper does). Output goes to files and only its bounded tail is read back
    (`output_tails`), whatever its size or encoding.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=workdir) as run_dir:
        script = Path(run_dir) / "config"
        write_script(script, str(deployment.get("config") or ""))
        outputs_path = Path(run_dir) / "outputs"
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": run_dir,
            "TMPDIR": run_dir,
            **{str(item["name"]): _text(item.get("value")) for item in deployment.get("inputs") or []},
            "heat_outputs_path": str(outputs_path),
        }
        streams = Path(run_dir) / "stdout", Path(run_dir) / "stderr"
        if start is None:
            start = partial(started_here, prefix=sandbox(run_dir) if sandbox is not None else ())
        status, note = _run(
            script, run_dir, environment=environment, time_limit=time_limit, start=start, streams=streams
        )
        result: dict[str, Any] = {
            "deploy_stdout": file_tail(streams[0]),
            "deploy_stderr": file_tail(streams[1]) + note,
            "deploy_status_code": status,
        }
        for output in deployment.get("outputs") or []:
            written = Path(f"{outputs_path}.{output['name']}")
            if written.is_file():
                result[str(output["name"])] = file_tail(written)
        return result


def _run(
    script: Path,
    run_dir: str,
    *,
    environment: dict[str, str],
    time_limit: float,
    start: Start,
    streams: tuple[Path, Path],
) -> tuple[int, str]:
    """Execute the script (one without a `#!` line under /bin/sh, as a shell runs it): its status
    code, and a line to add to its stderr when it was stopped or could not start."""
    with streams[0].open("wb") as stdout, streams[1].open("wb") as stderr:
        for argv in ([str(script)], ["/bin/sh", str(script)]):
            try:
                process = start(argv, run_dir, environment, stdout.fileno(), stderr.fileno())
            except OSError as error:
                if error.errno != errno.ENOEXEC:
                    return 126, str(error)
                continue
            try:
                return process.wait(time_limit), ""
            except subprocess.TimeoutExpired:
                process.kill()
                return TIMED_OUT, f"\nstopped after {time_limit:g} s"
    return 126, f"not executable: {script}"


class Started(Protocol):
    """A script started, in a session of its own."""

    def wait(self, timeout: float | None = None) -> int:
        """Its status (minus the signal that killed it); TimeoutExpired past `timeout` s."""

    def kill(self) -> None:
        """Kill it with every process still in its group, and reap it."""


# Start a command, in a directory, with an environment alone and descriptors for stdout and stderr
Start = Callable[[Sequence[str], str, Mapping[str, str], int, int], Started]


class _Here:
    """A process this one started (`started_here`)."""

    def __init__(self, process: subprocess.Popen[Any]) -> None:
        self._process = process

    def wait(self, timeout: float | None = None) -> int:
        return exit_status(self._process, timeout) if timeout is not None else self._process.wait()

    def kill(self) -> None:
        kill_group(self._process)


def started_here(
    argv: Sequence[str],
    cwd: str,
    environment: Mapping[str, str],
    stdout: int,
    stderr: int,
    *,
    prefix: Sequence[str] = (),
) -> Started:
    """`argv` started by this process, `prefix` put before it, in a session of its own."""
    return _Here(
        started_apart(
            partial(
                subprocess.Popen,
                [*prefix, *argv],
                cwd=cwd,
                env=environment,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                start_new_session=True,  # its group: what the time limit kills
            )
        )
    )


def kill_group(process: subprocess.Popen[Any]) -> None:
    """Kill a process started in a session of its own, and every process still in its group
    (a script entered into a machine is a child of the command that entered it), then reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        process.kill()
    process.wait()


def stand_in_hook(deployment: Mapping[str, Any], workdir: Path, time_limit: float) -> dict[str, Any]:
    """A group this agent has no tool for: delivered and answered, and said so."""
    group = deployment.get("group")
    return {
        "deploy_stdout": f"no hook for group {group!r} here: the config was delivered, not applied",
        "deploy_stderr": "",
        "deploy_status_code": 0,
    }


HOOKS: Mapping[str, Hook] = {"script": script_hook}
HookChooser = Callable[[str], Hook]


def hook_for(group: str) -> Hook:
    return HOOKS.get(group, stand_in_hook)
