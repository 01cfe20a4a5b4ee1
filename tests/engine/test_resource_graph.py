"""The ready set's graph: how long the chain of resources waiting on each resource is (its calls'
priority in the pool)."""

from __future__ import annotations

from reconciler.engine.resource_graph import ResourceGraph


def graph_of(edges: dict[str, set[str]]) -> ResourceGraph:
    graph = ResourceGraph()
    graph.reset({name: frozenset(required) for name, required in edges.items()})
    return graph


def test_a_resource_counts_the_longest_chain_of_resources_requiring_it() -> None:
    # a load balancer's tree in front of a group, beside a node's port, server and leaves
    graph = graph_of(
        {
            "lb": set(),
            "listener": {"lb"},
            "pool": {"listener"},
            "masters": {"pool"},
            "member": {"pool", "masters"},
            "monitor": {"pool"},
            "port": set(),
            "server": {"port"},
            "floating_ip": {"port"},
            "deployment": {"server"},
            "attachment": {"server"},
        }
    )

    levels = {name: graph.level_of(name) for name in graph.graph}

    assert levels == {
        "lb": 5,
        "listener": 4,
        "pool": 3,
        "masters": 2,
        "member": 1,
        "monitor": 1,
        "port": 3,
        "server": 2,
        "floating_ip": 1,
        "deployment": 1,
        "attachment": 1,
    }
    assert graph.level_of(("delete", "old-port")) == 0  # not a resource of the graph
    assert graph.level_of("gone") == 0


def test_a_new_generation_counts_its_own_graph() -> None:
    graph = graph_of({"a": set(), "b": {"a"}})
    assert graph.level_of("a") == 2

    graph.reset({"a": frozenset(), "b": frozenset(), "c": frozenset({"b"})})

    assert (graph.level_of("a"), graph.level_of("b"), graph.level_of("c")) == (1, 2, 1)
