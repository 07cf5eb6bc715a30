"""dpatlas.graph.synthesize: refusals, the debit, determinism, node ids, accuracy on a planted
partition, and the post-processing pieces (stub matching, block balancing, deconvolution)."""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pytest

from dpatlas.core.accounting.budget import Budget
from dpatlas.errors import BudgetExceededError
from dpatlas.graph import SyntheticGraph, synthesize
from dpatlas.graph._bter import coarsen, generate
from dpatlas.graph._deconvolve import deconvolved_degrees
from dpatlas.graph._generate import balance_blocks, pair_across, pair_within, shift_to_total
from dpatlas.graph._synth_stats import noisy_blocks, partition_size
from dpatlas.graph.input.edgegraph import as_edge_graph
from dpatlas.graph.synthetic import SPLIT

PLANTED = nx.planted_partition_graph(4, 100, 0.25, 0.01, seed=1)
TRUTH = np.repeat(np.arange(4), 100)


def _nmi(a: np.ndarray, b: np.ndarray) -> float:
    """Arithmetic-mean NMI (scikit-learn's default), written out."""
    n = a.size
    joint = np.zeros((a.max() + 1, b.max() + 1))
    np.add.at(joint, (a, b), 1.0 / n)
    pa, pb = joint.sum(1), joint.sum(0)
    nz = joint > 0
    mi = float((joint[nz] * np.log(joint[nz] / np.outer(pa, pb)[nz])).sum())
    h = [-float((p[p > 0] * np.log(p[p > 0])).sum()) for p in (pa, pb)]
    return mi / max((h[0] + h[1]) / 2, 1e-12)


class _Unreadable:
    """A 'graph' whose reading fails loudly: proves a refusal came before the graph was read."""

    def __len__(self) -> int:
        raise AssertionError("the graph was read")


def test_refused_over_budget_before_reading_and_spends_nothing() -> None:
    budget = Budget(0.5)
    with pytest.raises(BudgetExceededError, match="requested epsilon=1, "):
        synthesize(_Unreadable(), n=10, epsilon=1.0, budget=budget, rng=0)
    assert budget.history == ()


def test_refused_without_public_node_set_before_spending() -> None:
    budget = Budget(5.0)
    with pytest.raises(ValueError, match=r"needs the public node set: pass n="):
        synthesize(np.array([[0, 1], [1, 2]]), epsilon=1.0, budget=budget, rng=0)
    assert budget.history == ()


def test_unsampleable_epsilon_refused_before_spending() -> None:
    budget = Budget(1.0)
    with pytest.raises(ValueError, match="too large"):
        synthesize(PLANTED, n=400, epsilon=1e-300, budget=budget, rng=0)
    assert budget.history == ()


@pytest.mark.parametrize(
    ("split", "message"),
    [
        ({"degrees": 1.0}, "split must map exactly"),
        ({"degrees": 0.5, "partition": 0.5, "blocks": 0.0, "triangles": 0.0}, "must be > 0"),
        ({"degrees": 0.5, "partition": 0.5, "blocks": 0.5, "triangles": 0.5}, "sum to 1"),
    ],
)
def test_bad_split_named(split: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        synthesize(PLANTED, n=400, epsilon=1.0, split=split)


def test_bad_epsilon_and_n_named() -> None:
    with pytest.raises(ValueError, match=r"epsilon must be a finite number > 0, got -1\.0"):
        synthesize(PLANTED, n=400, epsilon=-1.0)
    with pytest.raises(ValueError, match="n=5 does not match"):
        synthesize(PLANTED, n=5, epsilon=1.0)


def test_exact_single_debit_and_record() -> None:
    budget = Budget(2.0)
    rel = synthesize(PLANTED, n=400, epsilon=0.75, budget=budget, rng=1)
    assert len(budget.history) == 1
    assert budget.history[0].mechanism == "synthesize"
    assert budget.spent.epsilon == 0.75
    assert rel.epsilon == 0.75
    assert rel.delta == 0.0
    assert rel.seeded
    split = rel.metadata["split"]
    assert set(split) == set(SPLIT)
    assert math.isclose(sum(split.values()), 0.75)
    assert math.isclose(split["partition"], 0.75 * SPLIT["partition"])


def test_zcdp_budget_charged_the_sum_of_the_stage_costs() -> None:
    budget = Budget(3.0, 1e-6, accounting="zcdp")
    rel = synthesize(PLANTED, n=400, epsilon=0.5, budget=budget, rng=1)
    expected = sum(v**2 for v in rel.metadata["split"].values()) / 2
    assert math.isclose(float(budget.history[0].rho), expected)


def test_seed_reproduces_and_differs_across_seeds() -> None:
    a = synthesize(PLANTED, n=400, epsilon=1.0, rng=5).value
    b = synthesize(PLANTED, n=400, epsilon=1.0, rng=5).value
    c = synthesize(PLANTED, n=400, epsilon=1.0, rng=6).value
    assert sorted(a.edges()) == sorted(b.edges())
    assert sorted(a.edges()) != sorted(c.edges())


def test_secure_default_is_not_seeded() -> None:
    rel = synthesize(nx.path_graph(30), n=30, epsilon=1.0)
    assert not rel.seeded


def test_node_ids_as_given() -> None:
    g = nx.relabel_nodes(nx.karate_club_graph(), {i: f"member-{i}" for i in range(34)})
    rel = synthesize(g, n=34, epsilon=2.0, rng=0)
    assert set(rel.value.nodes) == set(g.nodes)
    ids = np.array([10, 20, 30, 40, 50])
    rel = synthesize(np.array([[10, 20], [20, 30]]), nodes=ids, epsilon=1.0, rng=0)
    assert sorted(rel.value.nodes) == ids.tolist()
    rel = synthesize(np.array([[0, 1], [1, 2]]), n=6, epsilon=1.0, rng=0)
    assert sorted(rel.value.nodes) == list(range(6))  # isolated public nodes kept


def test_tiny_graphs() -> None:
    for n in (0, 1, 2, 3):
        rel = synthesize(np.zeros((0, 2), dtype=np.int64), n=n, epsilon=1.0, rng=0)
        assert rel.value.number_of_nodes() == n
        assert rel.metadata["triangles"] == 0 or n >= 3


def test_planted_partition_statistics_land_near_the_truth() -> None:
    deg = np.array([d for _, d in sorted(PLANTED.degree())])
    m, tri = PLANTED.number_of_edges(), sum(nx.triangles(PLANTED).values()) // 3
    recovered, intra = [], []
    for seed in range(3):
        rel = synthesize(PLANTED, n=400, epsilon=8.0, rng=seed)
        g = rel.value
        got = np.array([d for _, d in sorted(g.degree())])
        assert abs(g.number_of_edges() - m) / m < 0.02
        assert np.abs(got - deg).mean() < 0.1 * deg.mean()  # mean degree 28
        assert abs(rel.metadata["triangles"] - tri) / tri < 0.02  # the released count
        assert abs(sum(nx.triangles(g).values()) / 3 - tri) / tri < 0.05  # the graph's
        e = np.array(g.edges())
        intra.append(float((TRUTH[e[:, 0]] == TRUTH[e[:, 1]]).mean()))
        recovered.append(_nmi(TRUTH, rel.communities))
    # the truth: 89% of the edges inside the planted blocks; a random partition gives 25%
    assert np.mean(intra) > 0.55, intra
    assert np.mean(recovered) > 0.6, recovered


def test_release_record_json_and_edge_list(tmp_path) -> None:
    rel = synthesize(PLANTED, n=400, epsilon=1.0, rng=2)
    assert isinstance(rel, SyntheticGraph)
    data = json.loads(rel.to_json())
    assert data["value"] == {"nodes": 400, "edges": rel.value.number_of_edges()}
    assert data["mechanism"] == "synthesize"
    assert data["seeded"] is True
    with pytest.raises(ValueError, match="no confidence interval"):
        rel.confidence_interval()
    path = tmp_path / "synthetic.txt"
    rel.write_edgelist(path)
    lines = path.read_text().splitlines()
    assert lines[0].startswith("# dpatlas synthetic graph: edge-DP, epsilon=1")
    back = nx.read_edgelist(path, nodetype=int)
    assert sorted(map(sorted, back.edges())) == sorted(map(sorted, rel.value.edges()))


def test_pairings_are_matchings_inside_their_groups() -> None:
    gen = np.random.default_rng(0)
    keys = np.repeat([0, 1, 2], [5, 4, 1])
    nodes = np.arange(10)
    pairs = pair_within(keys, nodes, gen)
    assert len(pairs) == 2 + 2
    assert (keys[pairs[:, 0]] == keys[pairs[:, 1]]).all()
    assert np.unique(pairs).size == pairs.size
    pair = np.array([0, 0, 0, 0, 0, 3, 3])
    side = np.array([0, 0, 0, 1, 1, 0, 1])
    got = pair_across(pair, side, np.arange(7), gen)
    assert len(got) == 3
    assert all(side[a] == 0 and side[b] == 1 and pair[a] == pair[b] for a, b in got)


def test_balance_blocks_meets_row_sums() -> None:
    m = balance_blocks(
        np.array([[5.0, 2.0, 0.0], [2.0, 0.0, 1.0], [0.0, 1.0, 0.0]]), np.array([30.0, 8.0, 4.0])
    )
    assert np.allclose(m, m.T)
    assert np.allclose(m.sum(axis=1), [30.0, 8.0, 4.0], rtol=1e-3)


def test_shift_keeps_the_noisy_total() -> None:
    y = np.random.default_rng(1).laplace(0, 3, 1000) + np.r_[np.full(10, 100.0), np.zeros(990)]
    out = shift_to_total(y)
    assert out.min() >= 0
    assert math.isclose(out.sum(), y.sum(), rel_tol=1e-9)
    assert np.count_nonzero(out) < 100  # the empty cells' noise is mostly gone


def test_noisy_blocks_count_each_edge_once() -> None:
    g = as_edge_graph(np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]]), n=4)
    from dpatlas.core.rng import get_source

    labels = np.array([0, 0, 1, 1])
    runs = [noisy_blocks(g, labels, 2, 1e6, get_source(s)) for s in range(3)]  # noise ~ 1e-6
    for b in runs:
        assert b.tolist() == [[1, 3], [3, 1]]
    assert coarsen(runs[0], np.array([0, 0])).tolist() == [[8]]


def test_generate_hits_target_degrees() -> None:
    gen = np.random.default_rng(3)
    deg = gen.integers(1, 30, 500)
    deg[0] += 1 if deg.sum() % 2 else 0
    labels = np.repeat([0, 1], 250)
    blocks = np.array([[2000.0, 300.0], [300.0, 2000.0]])
    keys = generate(deg, labels, labels, blocks, 0.5, gen)
    got = np.bincount(np.r_[keys // 500, keys % 500], minlength=500)
    assert np.abs(got - deg).sum() / deg.sum() < 0.02
    u, v = keys // 500, keys % 500
    assert (u < v).all()
    assert np.unique(keys).size == keys.size


def test_deconvolution_keeps_the_distribution_and_range() -> None:
    gen = np.random.default_rng(0)
    d = np.r_[np.ones(3000, dtype=np.int64), np.full(1000, 40)]
    x = d + np.rint(gen.laplace(0, 5.0, d.size)).astype(np.int64)
    t = deconvolved_degrees(x, 5.0, 5000, gen)
    assert t.min() >= 0
    assert t.max() <= 4999
    assert abs(t.mean() - d.mean()) < 1.0
    assert (t[:3000] < 10).mean() > 0.8
    assert (np.abs(t[3000:] - 40) < 10).mean() > 0.8
    assert np.count_nonzero(np.clip(x, 0, None) == 0) > np.count_nonzero(t == 0)


def test_partition_size_is_public() -> None:
    assert [partition_size(e) for e in (0.1, 0.59, 0.6, 1.19, 1.2, 10.0)] == [4, 4, 8, 8, 16, 16]
