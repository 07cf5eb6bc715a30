"""clustering_coefficient: accuracy, budget once before noise, refusals, intervals."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from dpatlas.core.accounting.budget import Budget
from dpatlas.errors import BudgetExceededError
from dpatlas.graph.clustering import check_smooth_shares, clustering_coefficient

G = nx.powerlaw_cluster_graph(400, 4, 0.6, seed=2)
TRUE = nx.transitivity(G)


@pytest.mark.parametrize("method", ["piecewise", "ladder", "smooth", "global"])
def test_accurate_at_large_epsilon(method: str) -> None:
    vals = [clustering_coefficient(G, epsilon=20.0, method=method, rng=s).value for s in range(5)]
    assert abs(float(np.median(vals)) - TRUE) < 0.02 * TRUE


def test_budget_once_and_parts() -> None:
    b = Budget(3.0)
    rel = clustering_coefficient(
        G, epsilon=1.0, triangle_share=0.25, interval_epsilon=0.5, budget=b, rng=1
    )
    assert len(b.history) == 1
    assert b.spent[0] == pytest.approx(1.5)
    assert rel.mechanism == "clustering_coefficient/piecewise"  # the default for both counts
    assert rel.triangles.epsilon == pytest.approx(0.25 + 0.25)
    assert rel.wedges.epsilon == pytest.approx(0.75 + 0.25)
    assert rel.metadata["noisy_wedges"] == rel.wedges.value
    assert 0.0 <= rel.value <= 1.0


def test_refusals_spend_nothing() -> None:
    b = Budget(1.0)
    with pytest.raises(BudgetExceededError):
        clustering_coefficient("not read", epsilon=2.0, budget=b, n=3)
    with pytest.raises(ValueError, match="triangle_share must be a number in \\(0, 1\\), got 1"):
        clustering_coefficient(G, epsilon=0.1, triangle_share=1, budget=b)
    with pytest.raises(ValueError, match="method must be one of"):
        clustering_coefficient(G, epsilon=0.1, method="local", budget=b)
    with pytest.raises(ValueError, match="interval_epsilon is not needed for method='global'"):
        clustering_coefficient(G, epsilon=0.1, method="global", interval_epsilon=0.1, budget=b)
    assert len(b.history) == 0


def test_edges_without_a_public_node_set_are_refused() -> None:
    # was a PrivacyLeakWarning and a release on the nodes seen in the edges (issue #17)
    b = Budget(1.0)
    edges = np.array([[0, 1], [1, 2], [2, 0], [2, 3]])
    with pytest.raises(ValueError, match=r"needs the public node set.*pass n=.* or nodes="):
        clustering_coefficient(edges, epsilon=1.0, budget=b, rng=0)
    assert b.history == ()
    rel = clustering_coefficient(edges, epsilon=1.0, nodes=[0, 1, 2, 3, 4], rng=0)
    assert rel.metadata["n"] == 5


@pytest.mark.parametrize(
    ("method", "extra"), [("global", None), ("piecewise", 0.5), ("ladder", 0.5)]
)
def test_interval_covers(method: str, extra: float | None) -> None:
    hits = 0
    for seed in range(60):
        rel = clustering_coefficient(
            G, epsilon=1.0, method=method, interval_epsilon=extra, rng=seed
        )
        low, high = rel.confidence_interval(0.8)
        assert 0.0 <= low <= high <= 1.0
        hits += low <= TRUE <= high
    assert hits >= 48  # coverage >= 0.8 (fixed seeds)


def test_interval_needs_both_parts() -> None:
    rel = clustering_coefficient(G, epsilon=1.0, rng=0)
    with pytest.raises(ValueError, match="scale"):
        rel.confidence_interval()


def test_smooth_epsilon_too_small_for_a_share_is_refused_before_the_debit() -> None:
    """The refusal named the share (``epsilon=2e-10 ... delta=5e-07``) where the user passed
    4e-10 and 1e-6; it names what was passed and the smallest total ε accepted."""
    b = Budget(1.0, 1e-3)
    too_small = (
        r"^epsilon=4e-10 is too small for the clustering coefficient's smooth sensitivity with "
        r"delta=1e-06 \(triangle_share=0.5 .*; use epsilon >= (\S+)$"
    )
    with pytest.raises(ValueError, match=too_small) as refused:
        clustering_coefficient(
            "not read", epsilon=4e-10, delta=1e-6, method="smooth", budget=b, n=3
        )
    assert b.history == ()
    least = float(str(refused.value).rsplit(" ", 1)[1])
    clustering_coefficient(G, epsilon=least, delta=1e-6, method="smooth", budget=b, rng=0)
    with pytest.raises(ValueError, match="too small"):
        clustering_coefficient(
            G, epsilon=math.nextafter(least, 0.0), delta=1e-6, method="smooth", rng=0
        )


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_a_smooth_epsilon_too_small_for_the_whole_is_refused_with_the_shares_least(delta) -> None:
    """ε = 1e-12 was refused by the whole-ε check with 'use epsilon >= 2.9e-11', an ε the
    share check then refused in turn; found when the command line called the release's own
    check instead of the share check."""
    with pytest.raises(ValueError, match="clustering coefficient's smooth sensitivity") as refused:
        clustering_coefficient(G, epsilon=1e-12, delta=delta, method="smooth", rng=0)
    least = float(str(refused.value).rsplit(" ", 1)[1])
    clustering_coefficient(G, epsilon=least, delta=delta, method="smooth", rng=0)


def test_triangle_share_takes_the_real_numbers_epsilon_takes() -> None:
    """``Fraction(1, 2)`` and ``np.float32(0.5)`` were refused as "must be a number in (0, 1)";
    found by a hand fuzz."""
    from fractions import Fraction

    values = {
        clustering_coefficient(G, epsilon=1.0, triangle_share=share, rng=3).value
        for share in (0.5, Fraction(1, 2), np.float32(0.5), np.float64(0.5))
    }
    assert len(values) == 1
    rel = clustering_coefficient(G, epsilon=1.0, triangle_share=np.float32(0.3), rng=3)
    assert rel.metadata["triangle_share"] == 0.3
    for bad in (True, np.bool_(True), "0.5", 0, 1.0, float("nan")):
        with pytest.raises(ValueError, match="triangle_share must be a number in"):
            clustering_coefficient(G, epsilon=1.0, triangle_share=bad, rng=3)


def test_no_interval_names_the_clustering_release_and_interval_epsilon() -> None:
    """The refusal named 'triangle_count/piecewise' (a part) and no way to buy the interval;
    found by a hand fuzz."""
    rel = clustering_coefficient(G, epsilon=1.0, method="ladder", rng=0)
    with pytest.raises(
        ValueError, match=r"clustering_coefficient/ladder release has no interval.*interval_epsilon"
    ):
        rel.confidence_interval()


def test_a_level_too_close_to_1_for_the_parts_names_the_level_given() -> None:
    g = nx.Graph()
    g.add_nodes_from([0, 1])  # too small for a triangle: the box of the parts' intervals
    rel = clustering_coefficient(g, epsilon=1.0, rng=0)
    assert rel.confidence_interval(0.999999998) == (0.0, 1.0)
    with pytest.raises(ValueError, match=r"about 1 - 2e-9 .*got 0\.9999999985: .*sqrt\(level\)"):
        rel.confidence_interval(0.9999999985)


@pytest.mark.parametrize(("delta", "share"), [(0.0, 1e-300), (1e-6, 1e-17)])
def test_a_share_too_small_for_any_epsilon_is_named_not_an_epsilon(delta, share) -> None:
    """The message advised ``use epsilon >= 1000000.0``, which is refused the same way; found
    by the final review."""
    with pytest.raises(ValueError, match=r"triangle_share=.* too small a share of any epsilon"):
        check_smooth_shares(1e-12, delta, share)
