"""dpatlas.graph.synthesize: refusals, the debit, determinism, node ids, the record, and
accuracy on a planted partition."""

from __future__ import annotations

import json
import math

import networkx as nx
import numpy as np
import pytest

from dpatlas.core.accounting.budget import Budget
from dpatlas.errors import BudgetExceededError
from dpatlas.graph import SyntheticGraph, read_edgelist, synthesize
from dpatlas.graph.synthesis.synthetic import SPLIT

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
    with pytest.raises(ValueError, match=r"public node set: pass n=G\.number_of_nodes\(\)"):
        synthesize(nx.Graph([("a", "b")]), epsilon=1.0, budget=budget, rng=0)
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


@pytest.mark.parametrize(
    ("n", "error", "message"),
    [
        (-1, TypeError, "n must be a non-negative integer .*, got -1"),
        (2.0, TypeError, "n must be a non-negative integer .*, got 2.0"),
        (True, TypeError, "n must be a non-negative integer .*, got True"),
        (2**31, ValueError, "n must be below 2\\*\\*31"),
    ],
)
def test_bad_n_refused_before_the_graph_is_read(n: object, error: type, message: str) -> None:
    budget = Budget(1.0)
    with pytest.raises(error, match=message):
        synthesize(_Unreadable(), n=n, epsilon=1.0, budget=budget, rng=0)  # type: ignore[arg-type]
    assert budget.history == ()


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


def test_ids_read_off_the_edges_are_refused_before_spending(tmp_path) -> None:
    # the synthetic graph names its nodes: relabelled ids would publish which ids have an edge
    budget = Budget(5.0)
    with pytest.raises(ValueError, match=r"read off the edges \(n=5, largest id 30\)"):
        synthesize(np.array([[10, 20], [20, 30]]), n=5, epsilon=1.0, budget=budget, rng=0)
    f = tmp_path / "g.txt"
    f.write_text("10 20\n20 30\n")
    with pytest.raises(ValueError, match=r"give the public node ids as nodes="):
        synthesize(read_edgelist(f, n=5), n=5, epsilon=1.0, budget=budget, rng=0)
    with pytest.raises(ValueError, match=r"read off the edges \(n=3, largest id 30\)"):
        synthesize(read_edgelist(f), n=3, epsilon=1.0, budget=budget, rng=0)
    assert budget.history == ()
    # public names: ids 0..n-1 (seen or not), or the ids given as nodes=
    f.write_text("3 1\n1 0\n")
    assert sorted(synthesize(read_edgelist(f), n=6, epsilon=1.0, rng=0).value) == [0, 1, 2, 3, 4, 5]
    rel = synthesize(read_edgelist(f, nodes=[0, 1, 3, 70]), n=4, epsilon=1.0, rng=0)
    assert sorted(rel.value) == [0, 1, 3, 70]


def test_release_does_not_depend_on_the_order_nodes_were_added() -> None:
    # ties between equal noisy degrees are broken in the sorted order of the ids, which the
    # public node set fixes; an insertion order (a file's order of first appearance) is data
    a = nx.Graph()
    a.add_nodes_from(range(400))
    a.add_edges_from(PLANTED.edges)
    b = nx.Graph()
    b.add_nodes_from(np.random.default_rng(5).permutation(400).tolist())
    b.add_edges_from(PLANTED.edges)
    ra, rb = (synthesize(g, n=400, epsilon=1.0, rng=11) for g in (a, b))
    assert list(ra.value.nodes) == list(rb.value.nodes) == list(range(400))
    assert set(map(frozenset, ra.value.edges)) == set(map(frozenset, rb.value.edges))
    assert np.array_equal(ra.communities, rb.communities)
    mixed = nx.Graph([(2, "b"), ("b", 1), (1, 2)])
    assert list(synthesize(mixed, n=3, epsilon=1.0, rng=0).value.nodes) == [1, 2, "b"]


class _Tag:
    """A node label that does not sort, with the same ``repr`` for every instance."""

    def __repr__(self) -> str:
        return "tag"


def test_release_does_not_depend_on_the_order_of_labels_that_only_partly_sort() -> None:
    # frozensets sort by inclusion, a partial order: sorted() then keeps the insertion order of
    # incomparable labels, and nx.Graph(edges) inserts nodes in their order of first appearance
    # in the edges (data). Such labels are ordered by type name and repr instead
    ids = [frozenset({i}) for i in range(40)]
    edges = [(ids[u], ids[v]) for u, v in nx.gnp_random_graph(40, 0.2, seed=3).edges]
    a, b = nx.Graph(), nx.Graph()
    a.add_nodes_from(ids)
    b.add_nodes_from(ids[::-1])
    a.add_edges_from(edges)
    b.add_edges_from(edges)
    ra, rb = (synthesize(g, n=40, epsilon=1.0, rng=11) for g in (a, b))
    assert list(ra.value.nodes) == list(rb.value.nodes) == sorted(ids, key=repr)
    assert set(map(frozenset, ra.value.edges)) == set(map(frozenset, rb.value.edges))
    assert np.array_equal(ra.communities, rb.communities)


def test_labels_that_neither_sort_nor_have_distinct_reprs_are_refused_before_spending() -> None:
    budget = Budget(1.0)
    g = nx.Graph([(_Tag(), _Tag()), (0, 1)])
    with pytest.raises(ValueError, match=r"node labels tag and tag .* relabel the nodes"):
        synthesize(g, n=4, epsilon=1.0, budget=budget, rng=0)
    assert budget.spent.epsilon == 0.0


def test_labels_with_the_default_repr_are_refused_before_spending() -> None:
    """Their repr names a memory address, which follows the order the graph was built in:
    the fallback order would depend on it; found by the session's whole-diff review."""

    class Plain:
        pass

    budget = Budget(1.0)
    g = nx.Graph([(Plain(), Plain()), (0, 1)])
    with pytest.raises(ValueError, match=r"neither sorts nor has a repr of its own .* relabel"):
        synthesize(g, n=4, epsilon=1.0, budget=budget, rng=0)
    assert budget.spent.epsilon == 0.0


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


def test_write_communities_every_node_in_node_order(tmp_path) -> None:
    g = nx.relabel_nodes(PLANTED, {i: f"site-{i}" for i in range(400)})
    rel = synthesize(g, n=400, epsilon=2.0, rng=5)
    path = tmp_path / "communities.txt"
    rel.write_communities(path)
    lines = path.read_text().splitlines()
    assert lines[0] == (
        "# dpatlas synthetic graph communities: edge-DP, epsilon=2, nodes=400 (same release)"
    )
    rows = [line.split() for line in lines[1:]]
    assert [u for u, _ in rows] == sorted(g.nodes)  # the release's order: ids sorted
    assert [int(c) for _, c in rows] == rel.communities.tolist()
    assert len({c for _, c in rows}) == rel.metadata["communities"]
    empty = synthesize(np.zeros((0, 2), dtype=np.int64), n=0, epsilon=1.0, rng=0)
    empty.write_communities(tmp_path / "none.txt")
    assert (tmp_path / "none.txt").read_text().splitlines()[1:] == []


def test_write_communities_refused_without_communities(tmp_path) -> None:
    rel = synthesize(PLANTED, n=400, epsilon=1.0, rng=2)
    bare = SyntheticGraph(**{**rel.__dict__, "communities": None})
    with pytest.raises(ValueError, match="no communities to write"):
        bare.write_communities(tmp_path / "c.txt")
    assert not (tmp_path / "c.txt").exists()


@pytest.mark.parametrize("label", ["node 0", (0, 0), "", "#0", "a\tb", " x"])
def test_a_label_that_would_not_read_back_is_refused_before_writing(tmp_path, label) -> None:
    """``node 0 node 1`` (or ``(0, 0) (1, 1)``) was written: a file no reader splits into two
    nodes, found by a hand fuzz."""
    g = nx.relabel_nodes(nx.karate_club_graph(), {0: label})
    rel = synthesize(g, n=34, epsilon=2.0, rng=1)
    for write, name in ((rel.write_edgelist, "e.txt"), (rel.write_communities, "c.txt")):
        with pytest.raises(ValueError, match="would not read back from a 'u v' line"):
            write(tmp_path / name)
        assert not (tmp_path / name).exists()
