"""The private measurements of synthesize (graph/synthesis/_measure.py)."""

from __future__ import annotations

import numpy as np
from tests.helpers.distributions import assert_scale_detected, dlap_pmf

from dpatlas.core.rng import get_source
from dpatlas.graph.input.edgegraph import as_edge_graph
from dpatlas.graph.synthesis._bter import coarsen
from dpatlas.graph.synthesis._measure import noisy_blocks, noisy_degrees, partition_size


def test_noisy_blocks_count_each_edge_once() -> None:
    g = as_edge_graph(np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]]), n=4)
    labels = np.array([0, 0, 1, 1])
    runs = [noisy_blocks(g, labels, 2, 1e6, get_source(s)) for s in range(3)]  # noise ~ 1e-6
    for b in runs:
        assert b.tolist() == [[1, 3], [3, 1]]
    assert coarsen(runs[0], np.array([0, 0])).tolist() == [[8]]


def test_partition_size_is_public() -> None:
    assert [partition_size(e) for e in (0.1, 0.59, 0.6, 1.19, 1.2, 10.0)] == [4, 4, 8, 8, 16, 16]


def test_noisy_degrees_noise_has_scale_two_over_epsilon() -> None:
    # sensitivity 2 (an edge moves two degrees): a scale 30% off either way is rejected
    g = as_edge_graph(np.array([[0, 1], [1, 2]]), n=100_000)
    noise = noisy_degrees(g, 1.0, get_source(3)) - g.degrees
    assert_scale_detected(noise, dlap_pmf, 2.0)


def test_noisy_blocks_noise_has_scale_one_over_epsilon() -> None:
    # sensitivity 1 (an edge is in one cell); one draw per cell a <= b, mirrored below
    k = 400
    g = as_edge_graph(np.zeros((0, 2), dtype=np.int64), n=2)
    noisy = noisy_blocks(g, np.zeros(2, dtype=np.int64), k, 2.0, get_source(4))
    assert (noisy == noisy.T).all()
    assert_scale_detected(noisy[np.triu_indices(k)], dlap_pmf, 0.5)
