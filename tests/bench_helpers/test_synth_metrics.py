"""The chance-corrected NMI and the isolated-node count of the synthetic-graph bench."""

from __future__ import annotations

import networkx as nx
import numpy as np
from benchmarks.synth_metrics import graph_stats, nmi, nmi_adjusted, score


def test_identical_partitions_score_one() -> None:
    a = np.repeat(np.arange(40), 25)
    assert nmi_adjusted(a, a.copy()) == 1.0


def test_unrelated_partitions_with_many_singletons_are_at_chance() -> None:
    # the case of a synthetic graph with hundreds of isolated nodes: its partition has many
    # singleton communities, which lift the plain NMI of an unrelated partition, not this one
    rng = np.random.default_rng(3)
    a = rng.integers(0, 40, 5_000)
    b = rng.integers(0, 40, 5_000)
    b[:600] = np.arange(1_000, 1_600)
    assert nmi(a, b) > 0.08
    assert abs(nmi_adjusted(a, b)) < 0.01


def test_a_partition_sharing_half_its_nodes_sits_between() -> None:
    rng = np.random.default_rng(4)
    a = rng.integers(0, 20, 4_000)
    b = np.where(np.arange(4_000) < 2_000, a, rng.integers(0, 20, 4_000))
    assert 0.2 < nmi_adjusted(a, b) < 0.6


def test_score_counts_the_synthetic_graphs_isolated_nodes() -> None:
    true = nx.cycle_graph(12)
    synth = nx.path_graph(9)
    synth.add_nodes_from([9, 10, 11])
    out = score(graph_stats(true), graph_stats(synth))
    assert out["isolated"] == 3.0
    assert out["nmi_adj"] <= out["nmi"] <= 1.0
