"""Readiness polls: the longest waiting first, as many as recently came READY, and sweeps for the rest."""

from __future__ import annotations

from reconciler.engine.readiness_polls import GROWTH, MIN_WINDOW, SWEEP_EVERY, Poll, ReadinessPolls

SERVER = "OS::Nova::Server"
VOLUME = "OS::Cinder::Volume"
INTERVAL = 1.0


def waiting(count: int, type_name: str = SERVER, prefix: str = "s") -> list[tuple[str, str]]:
    return [(f"{prefix}{index}", type_name) for index in range(count)]


def nothing_out(type_name: str, sweep: bool) -> bool:
    return False


def choose(
    polls: ReadinessPolls,
    resources: list[tuple[str, str]],
    *,
    at: float,
    due: bool = True,
    out: object = nothing_out,
) -> list[Poll]:
    assert callable(out)
    return polls.choose(resources, now=at, interval=INTERVAL, interval_due=due, out=out)


def test_a_small_set_is_observed_whole_at_every_interval() -> None:
    polls = ReadinessPolls()
    resources = waiting(5) + waiting(3, VOLUME, "v")

    chosen = choose(polls, resources, at=0.0)

    assert {poll.type_name: poll.names for poll in chosen} == {
        SERVER: ["s0", "s1", "s2", "s3", "s4"],
        VOLUME: ["v0", "v1", "v2"],
    }
    assert not any(poll.sweep for poll in chosen)


def test_a_large_set_is_observed_from_its_longest_waiting_end() -> None:
    polls = ReadinessPolls()

    (poll,) = choose(polls, waiting(1_000), at=0.0)

    assert poll.names == [f"s{index}" for index in range(MIN_WINDOW)]


def test_when_a_whole_window_came_ready_the_next_poll_is_wider_and_goes_at_once() -> None:
    polls = ReadinessPolls()
    (first,) = choose(polls, waiting(1_000), at=0.0)
    polls.observed(first, resolved=len(first.names))

    (second,) = choose(polls, waiting(1_000)[MIN_WINDOW:], at=0.1, due=False)

    assert len(second.names) == GROWTH * MIN_WINDOW
    assert second.names[0] == f"s{MIN_WINDOW}"


def test_the_window_follows_how_many_came_ready() -> None:
    polls = ReadinessPolls()
    (first,) = choose(polls, waiting(1_000), at=0.0)
    polls.observed(first, resolved=len(first.names))
    (second,) = choose(polls, waiting(1_000), at=0.1, due=False)
    polls.observed(second, resolved=10)

    (third,) = choose(polls, waiting(1_000), at=0.2, due=False)

    assert len(third.names) == 10 + MIN_WINDOW


def test_when_none_came_ready_polls_wait_for_the_interval_with_the_smallest_window() -> None:
    polls = ReadinessPolls()
    (first,) = choose(polls, waiting(1_000), at=0.0)
    polls.observed(first, resolved=len(first.names))
    (second,) = choose(polls, waiting(1_000), at=0.1, due=False)
    polls.observed(second, resolved=0)

    assert choose(polls, waiting(1_000), at=0.2, due=False) == []
    (next_interval,) = choose(polls, waiting(1_000), at=1.0)
    assert len(next_interval.names) == MIN_WINDOW


def test_a_failed_observation_waits_for_the_interval() -> None:
    polls = ReadinessPolls()
    (first,) = choose(polls, waiting(1_000), at=0.0)
    polls.observed(first, resolved=len(first.names))
    (second,) = choose(polls, waiting(1_000), at=0.1, due=False)

    polls.observed(second, resolved=None)

    assert choose(polls, waiting(1_000), at=0.2, due=False) == []


def test_a_type_whose_poll_is_out_gets_no_second_one() -> None:
    polls = ReadinessPolls()

    chosen = choose(
        polls,
        waiting(5) + waiting(3, VOLUME, "v"),
        at=0.0,
        out=lambda type_name, sweep: type_name == SERVER and not sweep,
    )

    assert [poll.type_name for poll in chosen] == [VOLUME]


def test_a_sweep_observes_what_was_already_waiting_at_the_previous_sweep() -> None:
    """Given 1,000 servers waiting; when sweeps come round every SWEEP_EVERY intervals; then the
    first one observes nothing (it notes who waits), and the second observes those still waiting
    since the first, beyond any window: out-of-order readiness is seen within two sweep periods."""
    polls = ReadinessPolls()
    choose(polls, waiting(1_000), at=0.0)
    first_sweep = SWEEP_EVERY * INTERVAL
    assert [poll.sweep for poll in choose(polls, waiting(1_000), at=first_sweep)] == [False]

    still_waiting = waiting(1_000)[500:] + waiting(200, prefix="new")
    chosen = choose(polls, still_waiting, at=2 * first_sweep)

    (sweep,) = [poll for poll in chosen if poll.sweep]
    assert sweep.names == [f"s{index}" for index in range(500, 1_000)]
    (window,) = [poll for poll in chosen if not poll.sweep]
    assert window.names == [f"s{index}" for index in range(500, 500 + MIN_WINDOW)]


DEPLOYMENT = "OS::Heat::SoftwareDeployment"


def paced_polls() -> ReadinessPolls:
    return ReadinessPolls(lambda type_name: type_name == DEPLOYMENT, signal_poll=5.0)


def poll_times(polls: ReadinessPolls, resources: list[tuple[str, str]], until: float) -> list[float]:
    """When polls of `resources` went, an interval due every second, none finding anything READY."""
    times = []
    for second in range(int(until) + 1):
        for poll in choose(polls, resources, at=float(second)):
            times.append(float(second))
            polls.observed(poll, resolved=0)
    return times


def test_resources_waiting_for_a_signal_are_polled_ever_more_slowly_up_to_the_signal_pace() -> None:
    assert poll_times(paced_polls(), waiting(3, DEPLOYMENT, "d"), until=30) == [0, 1, 3, 7, 12, 17, 22, 27]


def test_other_types_keep_the_interval_beside_them() -> None:
    polls = paced_polls()
    assert poll_times(polls, waiting(2), until=5) == [0, 1, 2, 3, 4, 5]


def test_a_signal_kept_makes_the_next_poll_go_at_once() -> None:
    polls = paced_polls()
    resources = waiting(3, DEPLOYMENT, "d")
    poll_times(polls, resources, until=8)  # quiet until 12 by now
    assert choose(polls, resources, at=9.0) == []

    assert polls.poke_paced()
    (poll,) = choose(polls, resources, at=9.0)
    assert poll.names == ["d0", "d1", "d2"]


def test_a_poll_finding_some_ready_keeps_its_pace() -> None:
    """Given deployments polled ever more slowly; when a poll of them all finds one READY (its
    signal came, and the engine observes such ones by themselves as it is told); then the next
    poll of them all still waits for the pace, not the interval."""
    polls = paced_polls()
    resources = waiting(3, DEPLOYMENT, "d")
    poll_times(polls, resources, until=8)
    (poll,) = choose(polls, resources, at=12.0)
    polls.observed(poll, resolved=1)

    assert choose(polls, resources[1:], at=12.5, due=False) == []
    assert choose(polls, resources[1:], at=13.0) == []
    assert [p.names for p in choose(polls, resources[1:], at=17.0)] == [["d1", "d2"]]


def test_a_paced_poll_observes_every_resource_of_its_type_waiting() -> None:
    (poll,) = choose(paced_polls(), waiting(1_000, DEPLOYMENT, "d"), at=0.0)
    assert len(poll.names) == 1_000 and not poll.sweep
