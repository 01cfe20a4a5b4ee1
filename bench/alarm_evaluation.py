"""Cost of one alarm evaluation round of the simulated cloud: many alarms, many measures.

    python -m bench.alarm_evaluation [--alarms 1000] [--servers 10000]

Each alarm is a Gnocchi aggregation-by-resources alarm over one of `--alarms` server groups
(Heat's autoscaling shape); each server reports one cpu_util measure. Notifications go to a POST
that does nothing, so the figure is the evaluator's own cost.
"""

from __future__ import annotations

import argparse
import json
import time

from providers.interface import Marker
from providers.simulated.alarm_evaluator import AlarmEvaluator
from providers.simulated.alarm_notifier import AlarmNotifier
from providers.simulated.cloud import SimulatedCloud
from providers.simulated.provider import SimulatedProvider
from providers.simulated.telemetry import Measure


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alarms", type=int, default=1000)
    parser.add_argument("--servers", type=int, default=10_000)
    arguments = parser.parse_args()
    cloud = SimulatedCloud()
    provider = SimulatedProvider(cloud)
    for group in range(arguments.alarms):
        provider.create(
            "OS::Aodh::GnocchiAggregationByResourcesAlarm",
            {"metric": "cpu_util", "resource_type": "instance", "threshold": 80, "comparison_operator": "gt",
             "query": json.dumps({"=": {"server_group": f"g{group}"}}), "alarm_actions": ["http://x/"]},
            Marker("bench", f"alarm{group}", f"{group:08d}"),
        )  # fmt: skip
    now = cloud.clock()
    for server in range(arguments.servers):
        group = server % arguments.alarms
        cloud.telemetry.record(
            Measure(f"s{server}", "cpu_util", 90.0, now, "instance", {"server_group": f"g{group}"})
        )
    evaluator = AlarmEvaluator(cloud, AlarmNotifier(lambda url, body: 200))
    started, cpu = time.perf_counter(), time.process_time()
    sent = evaluator.evaluate()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    print(
        f"one round: {arguments.alarms} alarms, {arguments.servers} measures: {elapsed:.2f} s wall, "
        f"{cpu:.2f} s CPU, {len(sent)} notifications"
    )


if __name__ == "__main__":
    main()
