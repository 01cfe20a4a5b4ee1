"""`python -m bench.chaos`: run scenarios N times each, print every run's figures and a table."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path

from bench.chaos.figures import RunFigures, table
from bench.chaos.harness import RunOptions, execute
from bench.chaos.lifetime import exit_on_sigterm
from bench.chaos.scenarios import SCENARIOS


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m bench.chaos", description=__doc__)
    parser.add_argument(
        "--scenario",
        action="append",
        choices=[*SCENARIOS, "all"],
        help="a scenario to run (repeatable; default: every one but calm)",
    )
    parser.add_argument("--runs", type=int, default=1, help="runs of each scenario (default 1)")
    parser.add_argument(
        "--members", type=int, default=50, help="members per fleet (50: 400 resources; 250: 2,000)"
    )
    parser.add_argument("--deadline", type=float, default=900.0, help="seconds a run may take at most")
    parser.add_argument("--seed", type=int, help="seed of the scenario's random choices")
    parser.add_argument("--keep", action="store_true", help="keep each run's directory (logs)")
    parser.add_argument("--workdir", type=Path, help="where run directories are made (default: temp)")
    parser.add_argument("--json", type=Path, help="also write every run's figures to this file")
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    arguments = _arguments(argv)
    exit_on_sigterm()
    chosen = arguments.scenario or ["all"]
    names = [name for name in SCENARIOS if name != "calm"] if "all" in chosen else chosen
    options = RunOptions(
        members=arguments.members,
        deadline=arguments.deadline,
        seed=arguments.seed,
        keep=arguments.keep,
        workdir=arguments.workdir,
    )
    runs: list[RunFigures] = []
    for name in names:
        for index in range(1, arguments.runs + 1):
            figures = execute(SCENARIOS[name], options, index)
            print(figures.line(), flush=True)
            runs.append(figures)
    print(table(runs))
    if arguments.json is not None:
        arguments.json.write_text(json.dumps([asdict(run) for run in runs], indent=1, default=str))
    return 0 if all(run.passed for run in runs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
