"""PrivGraph's seven utility metrics of a synthetic graph, plus the triangle count (issue 19).

As in ``../shared/BENCHMARKS.md`` (PrivGraph section) and the authors' ``main.py``: both graphs
live on the node set ``0 .. n-1`` (synthetic node ``i`` stands for true node ``i``).

* ``nmi``: normalised mutual information (arithmetic mean of the entropies, scikit-learn's
  default) between the Louvain partitions (networkx ``louvain_communities``, ``seed=0``) of the
  two graphs; higher is better.
* ``evc_overlap``: share of the top ``k = ⌊0.01 n⌋`` eigenvector-centrality nodes in common;
  ``evc_mae``: mean absolute difference of the two top-``k`` centrality values, each list sorted
  by value. Centralities by networkx's power iteration (``(A + I) x``, L2-normalised, start
  ``1/n``, stop when the L1 change is below ``n · 1e-6``), replayed with scipy here.
* ``deg_kl``: KL(true ‖ synthetic) of the degree distributions (``np.bincount`` of all degrees,
  padded, ``+ machine eps`` inside the log), as the authors' ``cal_kl``.
* ``diam_rel``: relative error of the largest ``nx.approximation.diameter`` (seed 0) over the
  connected components.
* ``cc_rel``: relative error of the transitivity ``3T / Σ C(d, 2)`` (= ``nx.transitivity``).
* ``mod_rel``: relative error of each graph's modularity under its own Louvain partition.
* ``tri_rel``: relative error of the triangle count (our addition).
* ``nmi_adj`` and ``isolated`` (ours, not in the goal): the NMI corrected for chance
  (:func:`nmi_adjusted`), and the synthetic graph's isolated nodes (each its own Louvain
  community, which raises the NMI of unrelated partitions).

Relative errors are ``|a - b| / (a + 1e-15)`` (the authors' ``cal_rel``). Nothing here is
private: these are the exact statistics a benchmark compares.
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np
import scipy.sparse as sp

from dpatlas.graph.exact.counting import triangle_count_exact
from dpatlas.graph.input.edgegraph import as_edge_graph

__all__ = [
    "HIGHER_IS_BETTER",
    "METRICS",
    "GraphStats",
    "graph_stats",
    "nmi",
    "nmi_adjusted",
    "score",
]

METRICS = ("nmi", "evc_overlap", "evc_mae", "deg_kl", "diam_rel", "cc_rel", "mod_rel")
HIGHER_IS_BETTER = frozenset({"nmi", "evc_overlap"})


@dataclass(frozen=True)
class GraphStats:
    """The exact statistics of one graph on nodes ``0 .. n-1`` that the metrics compare."""

    labels: np.ndarray  # Louvain community of every node
    modularity: float
    evc_order: np.ndarray  # nodes by decreasing centrality (stable)
    evc_sorted: np.ndarray  # centralities, decreasing
    degree_counts: np.ndarray  # np.bincount of the degrees
    diameter: int
    transitivity: float
    triangles: int


def eigenvector_centrality(
    a: sp.csr_array, tol: float = 1.0e-6, max_iter: int = 10_000
) -> np.ndarray:
    """networkx's ``eigenvector_centrality`` iteration on a sparse adjacency matrix."""
    n = a.shape[0]
    x = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        last = x
        x = last + a @ last
        norm = float(np.sqrt(np.dot(x, x))) or 1.0
        x = x / norm
        if float(np.abs(x - last).sum()) < n * tol:
            return x
    raise nx.PowerIterationFailedConvergence(max_iter)


def _diameter(g: nx.Graph) -> int:
    """Largest 2-sweep lower bound over the components (a component of size s has diameter
    at most s - 1, so smaller components are skipped once they cannot win)."""
    best = 0
    for comp in sorted(nx.connected_components(g), key=len, reverse=True):
        if len(comp) - 1 <= best:
            break
        best = max(best, nx.approximation.diameter(g.subgraph(comp), seed=0))
    return best


def graph_stats(g: nx.Graph) -> GraphStats:
    """Everything :func:`score` needs about ``g`` (nodes must be ``0 .. n-1``)."""
    n = g.number_of_nodes()
    if sorted(g.nodes) != list(range(n)):
        raise ValueError("graph nodes must be 0 .. n-1")
    eg = as_edge_graph(np.array(g.edges(), dtype=np.int64).reshape(-1, 2), n=n)
    parts = nx.community.louvain_communities(g, seed=0)
    labels = np.empty(n, dtype=np.int64)
    for c, members in enumerate(parts):
        labels[list(members)] = c
    evc = eigenvector_centrality(eg.to_scipy(np.float64))
    evc_order = np.argsort(-evc, kind="stable")
    deg = np.asarray(eg.degrees)
    wedges = float((deg * (deg - 1) // 2).sum())
    tri = triangle_count_exact(eg)
    return GraphStats(
        labels=labels,
        modularity=float(nx.community.modularity(g, parts)) if g.number_of_edges() else 0.0,
        evc_order=evc_order,
        evc_sorted=evc[evc_order],
        degree_counts=np.bincount(deg),
        diameter=_diameter(g),
        transitivity=3.0 * tri / wedges if wedges else 0.0,
        triangles=tri,
    )


def nmi(a: np.ndarray, b: np.ndarray) -> float:
    """Normalised mutual information, arithmetic normalisation (scikit-learn's default).

    >>> nmi(np.array([0, 0, 1, 1]), np.array([5, 5, 7, 7]))
    1.0
    """
    _, ia = np.unique(a, return_inverse=True)
    _, ib = np.unique(b, return_inverse=True)
    ka, kb = int(ia.max()) + 1, int(ib.max()) + 1
    if ka == kb == 1:
        return 1.0
    n = a.size
    joint = np.unique(ia * kb + ib, return_counts=True)[1] / n
    pa, pb = np.bincount(ia) / n, np.bincount(ib) / n
    keys = np.unique(ia * kb + ib)
    pa_j, pb_j = pa[keys // kb], pb[keys % kb]
    mi = float(np.sum(joint * (np.log(joint) - np.log(pa_j) - np.log(pb_j))))
    ha, hb = -float(np.sum(pa * np.log(pa))), -float(np.sum(pb * np.log(pb)))
    return max(mi, 0.0) / max((ha + hb) / 2, np.finfo(np.float64).eps)


def nmi_adjusted(a: np.ndarray, b: np.ndarray, draws: int = 10, seed: int = 0) -> float:
    """:func:`nmi` corrected for chance: ``(NMI − m) / (1 − m)``, ``m`` the mean NMI of ``a``
    against ``draws`` random permutations of ``b`` (the community sizes kept: the permutation
    model of the adjusted mutual information, estimated by Monte Carlo). 0 at chance level, 1
    for identical partitions; many small communities (isolated nodes each their own) raise the
    NMI of unrelated partitions, not this.

    >>> a = np.repeat(np.arange(50), 100)
    >>> nmi_adjusted(a, a)
    1.0
    >>> b = np.random.default_rng(1).permutation(a)
    >>> nmi(a, b) > 0.04, abs(nmi_adjusted(a, b)) < 0.01
    (True, True)
    """
    rng = np.random.default_rng(seed)
    chance = float(np.mean([nmi(a, rng.permutation(b)) for _ in range(draws)]))
    return (nmi(a, b) - chance) / max(1.0 - chance, np.finfo(np.float64).eps)


def _rel(a: float, b: float) -> float:
    return abs((a - b) / (a + 1e-15))


def _kl(p_counts: np.ndarray, q_counts: np.ndarray) -> float:
    p = p_counts / p_counts.sum()
    q = q_counts / q_counts.sum()
    size = max(p.size, q.size)
    p, q = np.pad(p, (0, size - p.size)), np.pad(q, (0, size - q.size))
    tiny = np.finfo(np.float64).eps
    return float(np.sum(p * np.log((p + tiny) / (q + tiny))))


def score(true: GraphStats, synth: GraphStats) -> dict[str, float]:
    """The seven metrics of ``synth`` against ``true``, plus ``tri_rel``, ``nmi_adj``,
    ``isolated``."""
    n = true.labels.size
    k = int(0.01 * n)
    top_true, top_synth = set(true.evc_order[:k].tolist()), set(synth.evc_order[:k].tolist())
    return {
        "nmi": nmi(true.labels, synth.labels),
        "evc_overlap": len(top_true & top_synth) / k if k else 1.0,
        "evc_mae": float(np.mean(np.abs(true.evc_sorted[:k] - synth.evc_sorted[:k]))) if k else 0.0,
        "deg_kl": _kl(true.degree_counts, synth.degree_counts),
        "diam_rel": _rel(true.diameter, synth.diameter),
        "cc_rel": _rel(true.transitivity, synth.transitivity),
        "mod_rel": _rel(true.modularity, synth.modularity),
        "tri_rel": _rel(true.triangles, synth.triangles),
        "nmi_adj": nmi_adjusted(true.labels, synth.labels),
        "isolated": float(synth.degree_counts[0]) if synth.degree_counts.size else 0.0,
    }
