"""The private measurements of synthesize (graph/synthesis/_measure.py)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers.distributions import assert_scale_detected, dlap_pmf

from dpatlas.core.rng import get_source
from dpatlas.graph.input.edgegraph import as_edge_graph
from dpatlas.graph.synthesis import _measure as measure
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


def test_private_partition_noise_scales_one_and_two_over_epsilon_and_four_for_hubs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a non-hub releases its own label counts + discrete Laplace(1/ε) and its hub-neighbour
    # counts + DL(2/ε); each of a hub's two visits releases its counts + DL(4/ε). The noise is
    # recorded where it enters the compiled sweep, and 30% off either way is rejected
    n, eps, revisit = 60_000, 1.0, 0.03
    seen: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    real = measure._sweep

    def record(graph, labels, order, noise, extra, *rest):  # type: ignore[no-untyped-def]
        seen.append((order.copy(), noise.copy(), extra.copy()))
        real(graph, labels, order, noise, extra, *rest)

    monkeypatch.setattr(measure, "_sweep", record)
    g = as_edge_graph(np.zeros((0, 2), dtype=np.int64), n=n)
    weights = np.arange(n, 0, -1)  # hubs: the first ⌈revisit · n⌉ nodes
    measure.private_partition(
        g, weights, eps, get_source(5), np.random.default_rng(5), revisit=revisit
    )
    order = np.concatenate([o for o, _, _ in seen])
    noise = np.concatenate([z for _, z, _ in seen]).astype(np.int64)
    extra = np.concatenate([x for _, _, x in seen]).astype(np.int64)
    assert noise.shape == extra.shape == (n + 1800, partition_size(eps))
    hub = order < 1800
    assert np.bincount(order, minlength=n).tolist() == [2] * 1800 + [1] * (n - 1800)
    assert not extra[hub].any()
    assert_scale_detected(noise[~hub].ravel(), dlap_pmf, 1 / eps)
    assert_scale_detected(extra[~hub].ravel(), dlap_pmf, 2 / eps)
    assert_scale_detected(noise[hub].ravel(), dlap_pmf, 4 / eps)


class _Start:
    """A generator stub whose ``integers`` returns the given initial labels."""

    def __init__(self, labels: list[int]) -> None:
        self.labels = np.array(labels)

    def integers(self, low: int, high: int, size: int) -> np.ndarray:
        assert size == self.labels.size
        assert self.labels.max() < high
        return self.labels.copy()


def test_private_partition_counts_earlier_non_hubs_and_every_hub() -> None:
    # node 0 is the hub; visits 0, 1, ..., 5, then 0 again. Noise this small leaves the counts
    # in charge. Node 1 has no earlier non-hub neighbour, so it follows the hub (half weight);
    # node 2 counts node 1 (earlier) but not nodes 3, 4, 5 (later, all still labelled 4): a
    # pass counting every neighbour would move it to 4
    g = as_edge_graph(np.array([[0, 1], [1, 2], [2, 3], [2, 4], [2, 5]]), n=6)
    labels = measure.private_partition(
        g,
        np.arange(6, 0, -1).astype(np.float64),
        1e6,
        get_source(1),
        _Start([1, 2, 3, 4, 4, 4]),  # type: ignore[arg-type]
        revisit=1 / 6,
        resolution=0.0,
    )
    assert labels.tolist() == [2] * 6


def test_a_move_depends_on_the_released_counts_only_even_past_two_to_the_53(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # node 1's released vector is (count + noise) per label: [2**53 + 2, 2**53 + 2, ...] on both
    # graphs (count 1 with noise 2**53 + 1, or count 0 with noise 2**53 + 2). Its move is
    # post-processing only if it is a function of that vector: the same label on both. Noise
    # held as float64 rounds 2**53 + 1 to 2**53 first, so the count then decided the move
    big, low = 2**53, -(2**60)
    k = partition_size(4.0)

    def run(edges: np.ndarray, first: int) -> list[int]:
        rows = np.full((2, k), low, dtype=np.int64)
        rows[0, 0] = 10  # node 0 (visited first, no earlier neighbour) takes label 0
        rows[1, :2] = [big + first, big + 2]
        draws = iter([np.zeros(0, np.int64), rows.ravel(), np.zeros(2 * k, np.int64)])
        monkeypatch.setattr(measure, "_dlap", lambda src, size, scale: next(draws))
        g = as_edge_graph(edges, n=2)
        labels = measure.private_partition(
            g,
            np.array([2.0, 1.0]),
            4.0,
            get_source(0),
            _Start([3, 3]),  # type: ignore[arg-type]
            resolution=0.0,
            revisit=0.0,
        )
        return labels.tolist()

    assert run(np.array([[0, 1]]), 1) == run(np.zeros((0, 2), np.int64), 2)
