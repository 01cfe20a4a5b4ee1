"""The scenarios: what each run does to the daemons, the database or the cloud while they converge.

Every scenario pushes the change (revision 1) mid-run, when the cloud holds half of what the first
commit wants, unless it says otherwise; the run then waits for convergence and audits.
"""

from __future__ import annotations

from bench.chaos.harness import LEASE_SECONDS, RENEW_SECONDS, Run, Scenario

KILLS = 6
KILL_EVERY = (4.0, 8.0)  # seconds between two kills, drawn per kill
RESTART_AFTER = 2.0  # a killed daemon's replacement starts this long after (systemd RestartSec)
PAUSE_SECONDS = 60.0  # past the lease: the paused daemon's shards are taken while it sleeps
FAULTS = "error_rate=0.1,kinds=500+503+429+timeout+lost-response,retry_after=1"
MIDWAY = 0.5


def calm(run: Run) -> None:
    """No disturbance: the change mid-run only. The control the other scenarios compare with."""
    run.wait_for_share(MIDWAY)
    run.push_change()


def kill_random_daemons(run: Run) -> None:
    """kill -9 of a random daemon every few seconds, each started again; the change when due."""
    run.wait_for_share(0.05)
    for _ in range(KILLS):
        run.wait(run.rng.uniform(*KILL_EVERY))
        if run.change_pushed_at is None and run.share() >= MIDWAY:
            run.push_change()
        slot = run.rng.choice(sorted(run.fleet.live))
        run.kill(slot)
        run.wait(RESTART_AFTER)
        run.fleet.start(slot)


def stop_past_lease(run: Run) -> None:
    """SIGSTOP the busiest daemon for 60 s while the change converges, then SIGCONT it."""
    run.wait_for_share(MIDWAY)
    run.push_change()
    run.wait_until(run.change_seen, LEASE_SECONDS * 4)
    run.wait(3.0)
    slot = run.busiest_slot()
    daemon = run.fleet.pause(slot)
    run.watcher.lost(daemon.worker_id)
    run.watcher.note(f"SIGSTOP {daemon.worker_id}")
    run.wait(PAUSE_SECONDS)
    while_stopped = run.audit_now(1)
    run.notes.append(f"missing at SIGCONT {while_stopped.total_missing}")
    run.fleet.resume(slot)
    run.watcher.note(f"SIGCONT {daemon.worker_id} ({while_stopped.total_missing} missing)")
    run.wait(LEASE_SECONDS + RENEW_SECONDS)  # whatever the woken daemon still sends lands before the audit


def restart_database(run: Run) -> None:
    """PostgreSQL restarted twice: during the first commit's convergence and during the change's."""
    run.wait_for_share(0.3)
    run.cluster.restart()
    run.watcher.note("PostgreSQL restarted")
    run.wait_for_share(MIDWAY)
    run.push_change()
    run.wait_until(run.change_seen, LEASE_SECONDS * 4)
    run.wait(5.0)
    run.cluster.restart()
    run.watcher.note("PostgreSQL restarted")


def injected_faults(run: Run) -> None:
    """10% of the cloud's calls fail (500, 503, 429, timeout, lost response); set at serve time."""
    calm(run)


def add_daemon(run: Run) -> None:
    """Two daemons converge; a third joins midway through the first commit (no kill)."""
    run.wait_for_share(0.25)
    shards = len(run.watcher.latest.leases) if run.watcher.latest is not None else 64
    daemon = run.fleet.start("d2")
    run.watcher.joined(daemon.worker_id, shards // 3)
    run.watcher.note(f"{daemon.worker_id} added")
    run.wait_for_share(MIDWAY)
    run.push_change()


SCENARIOS = {
    scenario.name: scenario
    for scenario in (
        Scenario("calm", "no disturbance; the change mid-run (control)", calm),
        Scenario(
            "kill",
            f"kill -9 of a random daemon every 4-8 s, {KILLS} kills, each restarted",
            kill_random_daemons,
        ),
        Scenario(
            "stop", f"the busiest daemon SIGSTOPped {PAUSE_SECONDS:.0f} s during the change", stop_past_lease
        ),
        Scenario("database", "PostgreSQL restarted twice (first commit, then change)", restart_database),
        Scenario(
            "faults",
            "10% of cloud calls fail: 500, 503, 429, timeout, lost response",
            injected_faults,
            cloud_options=("--faults", FAULTS),
        ),
        Scenario("rebalance", "2 daemons, a third added midway (no kill)", add_daemon, daemons=2),
    )
}
