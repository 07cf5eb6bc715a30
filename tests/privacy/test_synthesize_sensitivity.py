"""Sensitivity of every measurement of synthesize, checked on ALL one-edge neighbours.

The proof (docs/synthetic-graphs.md, "Privacy proof"; ``private_partition``'s docstring)
claims, for neighbours ``G ~ G'`` (same public node set, one edge apart):

* degrees: the degree vector moves by at most 2 in L1;
* partition: *given the same earlier released values* (labels, hence the same state of the
  pass), each released count vector moves by at most 1 in L1, and the losses add up to at most
  ``ε₂``: ``Σ L1 / b`` over the vectors with ``b = 4/ε₂`` (a hub visit), ``1/ε₂`` (a non-hub's
  earlier-neighbour counts), ``2/ε₂`` (a non-hub's hub counts);
* blocks: given the released cells, the released upper triangle moves by at most 1;
* triangles: the ladder satisfies (L1)-(L2) of :mod:`dpatlas.core.noise.local.ladder`.

Each check runs the code ``synthesize`` runs with its noise at zero. For the partition pass the
compiled ``_sweep`` is replaced by its Python body under a line tracer that copies the two count
vectors of each visit just before the move, and the moves are *forced* to a fixed transcript of
labels (any transcript is a possible output: the noise has full support), so that ``G`` and
``G'`` are compared on the same released history: the adaptive composition of the proof.
"""

from __future__ import annotations

import inspect
import itertools
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from dpatlas.core.rng import get_source
from dpatlas.graph import synthesize
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph
from dpatlas.graph.synthesis import _measure as measure
from dpatlas.graph.synthesis import synthetic

FORCE = 1e9  # a forced move: this label's noise dwarfs every count and penalty
SWEEP = measure._sweep.py_func  # the compiled pass's Python body


def _zero_noise(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(measure, "_dlap", lambda src, size, scale: np.zeros(size, np.int64))


def _graph(edges: list[tuple[int, int]], n: int) -> EdgeGraph:
    return as_edge_graph(np.array(edges, dtype=np.int64).reshape(-1, 2), n=n)


def _neighbour_pairs(n: int) -> Iterator[tuple[list[tuple[int, int]], list[tuple[int, int]]]]:
    """Every graph on ``n`` nodes and every graph one edge more (each pair once)."""
    pairs = list(itertools.combinations(range(n), 2))
    for mask in range(1 << len(pairs)):
        edges = [p for i, p in enumerate(pairs) if mask >> i & 1]
        for i, p in enumerate(pairs):
            if not mask >> i & 1:
                yield edges, [*edges, p]


def _random_pairs(
    n: int, count: int, rng: np.random.Generator
) -> Iterator[tuple[list[tuple[int, int]], list[tuple[int, int]]]]:
    pairs = list(itertools.combinations(range(n), 2))
    for _ in range(count):
        keep = rng.random(len(pairs)) < rng.uniform(0.1, 0.9)
        edges = [p for p, k in zip(pairs, keep, strict=True) if k]
        absent = [p for p, k in zip(pairs, keep, strict=True) if not k]
        if absent:
            yield edges, [*edges, absent[int(rng.integers(len(absent)))]]


class _Recorder:
    """Runs ``_sweep``'s Python body with forced moves and records each visit's count vectors."""

    def __init__(self, transcript: np.ndarray) -> None:
        self.transcript = transcript
        self.visits: list[tuple[int, bool, np.ndarray, np.ndarray]] = []
        self._fn = SWEEP
        lines, start = inspect.getsourcelines(self._fn)
        self._mark = start + next(i for i, s in enumerate(lines) if s.strip() == "seen[u] = True")

    def _local(self, frame: Any, event: str, arg: Any) -> Any:
        if event == "line" and frame.f_lineno == self._mark:
            loc = frame.f_locals
            u = int(loc["u"])
            hub = bool(loc["graph"][2][u])
            self.visits.append((u, hub, loc["own"].copy(), loc["hubs"].copy()))
        return self._local

    def _global(self, frame: Any, event: str, arg: Any) -> Any:
        return self._local if frame.f_code is self._fn.__code__ else None

    def __call__(self, graph, labels, order, noise, extra, *rest):  # type: ignore[no-untyped-def]
        first = len(self.visits)
        noise = np.zeros_like(noise)
        noise[np.arange(order.size), self.transcript[first : first + order.size]] = FORCE
        before = sys.gettrace()
        sys.settrace(self._global)
        try:
            self._fn(graph, labels, order, noise, np.zeros_like(extra), *rest)
        finally:
            sys.settrace(before)


def _partition_visits(
    monkeypatch: pytest.MonkeyPatch,
    g: EdgeGraph,
    weights: np.ndarray,
    epsilon: float,
    revisit: float,
    transcript: np.ndarray,
    seed: int,
) -> list[tuple[int, bool, np.ndarray, np.ndarray]]:
    rec = _Recorder(transcript)
    monkeypatch.setattr(measure, "_sweep", rec)
    labels = measure.private_partition(
        g, weights, epsilon, get_source(0), np.random.default_rng(seed), revisit=revisit
    )
    hubs = int(np.ceil(revisit * g.n))
    assert len(rec.visits) == g.n + hubs
    assert labels.tolist() == [int(x) for x in _final_labels(rec, transcript, g.n)]
    return rec.visits


def _final_labels(rec: _Recorder, transcript: np.ndarray, n: int) -> list[int]:
    out = [-1] * n
    for (u, *_), label in zip(rec.visits, transcript, strict=False):
        out[u] = int(label)
    return out


def partition_loss(
    monkeypatch: pytest.MonkeyPatch,
    a: EdgeGraph,
    b: EdgeGraph,
    weights: np.ndarray,
    epsilon: float,
    revisit: float,
    seed: int,
) -> tuple[float, float, float, float]:
    """Largest L1 change of a hub visit's vector, of a non-hub's own and hub counts, and the
    pass's total loss in units of ε (``Σ L1 / (b ε)``), on one forced transcript."""
    k = measure.partition_size(epsilon)
    rng = np.random.default_rng(seed)
    transcript = rng.integers(0, k, a.n + int(np.ceil(revisit * a.n)))
    va = _partition_visits(monkeypatch, a, weights, epsilon, revisit, transcript, seed)
    vb = _partition_visits(monkeypatch, b, weights, epsilon, revisit, transcript, seed)
    hub_l1 = own_l1 = from_hubs_l1 = loss = 0.0
    for (u, hub, own, hubs), (u2, hub2, own2, hubs2) in zip(va, vb, strict=True):
        assert (u, hub) == (u2, hub2)  # the order and the hubs are public
        d_own, d_hubs = float(np.abs(own - own2).sum()), float(np.abs(hubs - hubs2).sum())
        if hub:
            assert not hubs.any()
            assert not hubs2.any()
            hub_l1 = max(hub_l1, d_own)
            loss += d_own / 4  # scale 4/ε
        else:
            own_l1, from_hubs_l1 = max(own_l1, d_own), max(from_hubs_l1, d_hubs)
            loss += d_own + d_hubs / 2  # scales 1/ε and 2/ε
    return hub_l1, own_l1, from_hubs_l1, loss


def _weights(n: int, rng: np.random.Generator) -> np.ndarray:
    """Public weights (noisy degrees >= 1), with ties half of the time."""
    top = 3 if rng.random() < 0.5 else 50
    return rng.integers(1, top, n).astype(np.float64)


def _check_partition(
    monkeypatch: pytest.MonkeyPatch,
    pairs: Iterator[tuple[list[tuple[int, int]], list[tuple[int, int]]]],
    n: int,
    rng: np.random.Generator,
) -> list[float]:
    worst = np.zeros(4)
    for i, (ea, eb) in enumerate(pairs):
        a, b = _graph(ea, n), _graph(eb, n)
        revisit = (0.03, 0.2, 0.45)[i % 3]  # 1 hub, or a fifth or near half of the nodes
        epsilon = (0.5, 1.0, 2.0)[i // 3 % 3]  # K = 4, 8, 16 labels
        got = partition_loss(monkeypatch, a, b, _weights(n, rng), epsilon, revisit, i)
        worst = np.maximum(worst, got)
    return worst.tolist()


@pytest.mark.parametrize("n", [6, 8, 10])
def test_partition_vectors_move_by_one_and_the_pass_costs_epsilon_on_random_neighbours(
    monkeypatch: pytest.MonkeyPatch, n: int
) -> None:
    # largest L1 of a hub visit's vector, a non-hub's own counts, its hub counts; the loss / ε
    rng = np.random.default_rng(n)
    assert _check_partition(monkeypatch, _random_pairs(n, 150, rng), n, rng) == [1.0] * 4


@pytest.mark.slow
def test_partition_vectors_move_by_one_and_the_pass_costs_epsilon_on_all_5_node_neighbours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(2024)
    assert _check_partition(monkeypatch, _neighbour_pairs(5), 5, rng) == [1.0] * 4


def test_degrees_and_blocks_move_by_their_sensitivity_on_all_5_node_neighbours(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _zero_noise(monkeypatch)
    rng = np.random.default_rng(5)
    src = get_source(0)
    deg = blk = 0
    for ea, eb in _neighbour_pairs(5):
        a, b = _graph(ea, 5), _graph(eb, 5)
        d = measure.noisy_degrees(a, 1.0, src) - measure.noisy_degrees(b, 1.0, src)
        deg = max(deg, int(np.abs(d).sum()))
        k = int(rng.integers(1, 6))
        cells = rng.integers(0, k, 5)  # released labels × classes: any
        up = np.triu_indices(k)
        diff = measure.noisy_blocks(a, cells, k, 1.0, src) - measure.noisy_blocks(
            b, cells, k, 1.0, src
        )
        blk = max(blk, int(np.abs(diff[up]).sum()))
    assert (deg, blk) == (2, 1)


def _ladder(g: EdgeGraph, length: int) -> np.ndarray:
    lad = sensitivity_ladder(common_neighbour_stats(g))
    return np.r_[lad, np.full(length, lad[-1])][:length]


@pytest.mark.parametrize("n", [5, pytest.param(6, marks=pytest.mark.slow)])
def test_triangle_ladder_is_a_ladder_on_all_neighbours(n: int) -> None:
    jump = worst = 0
    for ea, eb in _neighbour_pairs(n):
        a, b = _graph(ea, n), _graph(eb, n)
        la, lb = _ladder(a, 2 * n + 2), _ladder(b, 2 * n + 2)
        sa, sb = common_neighbour_stats(a), common_neighbour_stats(b)
        jump = abs(int(sa.triangles) - int(sb.triangles))
        assert jump <= min(la[0], lb[0])  # (L1) both ways
        assert (la[:-1] <= lb[1:]).all()  # (L2) both ways
        assert (lb[:-1] <= la[1:]).all()
        worst = max(worst, jump)
    assert worst == n - 2


def _edges(rel: Any) -> list[tuple[int, int]]:
    return sorted(tuple(sorted(e)) for e in rel.value.edges())


STAGES = ("noisy_degrees", "private_partition", "noisy_blocks", "_noisy_triangles")


def _replayed(
    monkeypatch: pytest.MonkeyPatch, first: np.ndarray, others: list[np.ndarray], n: int, seed: int
) -> list[Any]:
    """Releases of ``first`` and each of ``others`` given the four measurements recorded on a
    run on ``first``, replayed without drawing (so every run's generator starts from the same
    words: the ladder's draws are many or few depending on the data)."""
    released: dict[str, Any] = {}

    def record(name: str, real: Any) -> Any:
        def call(*args: Any, **kw: Any) -> Any:
            released[name] = real(*args, **kw)
            return released[name]

        return call

    with monkeypatch.context() as m:
        for name in STAGES:
            m.setattr(synthetic, name, record(name, getattr(synthetic, name)))
        synthesize(first, n=n, epsilon=1.0, rng=seed)
    with monkeypatch.context() as m:
        for name in STAGES:
            m.setattr(synthetic, name, lambda *a, _name=name, **k: released[_name])
        return [synthesize(g, n=n, epsilon=1.0, rng=seed) for g in (first, *others)]


def test_everything_after_the_measurements_reads_only_released_values(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Neighbours given the same four released measurements (and the same seed) get the same
    synthetic graph, communities and metadata: nothing after the measurements reads the graph
    (``len(G.edges)``, its degrees, its order)."""
    rng = np.random.default_rng(11)
    n = 40
    for ea, eb in _random_pairs(n, 6, rng):
        seed = int(rng.integers(2**31))
        a, b = _replayed(monkeypatch, np.array(ea), [np.array(eb)], n, seed)
        assert _edges(a) == _edges(b)
        assert a.communities.tolist() == b.communities.tolist()
        assert a.metadata == b.metadata
