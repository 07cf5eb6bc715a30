"""PrivGraph (Yuan et al., USENIX Security 2023) as the authors' code runs it: the baseline of
``dpatlas.graph.synthesize`` (issue 19). Written from the paper and the published repository
(Privacy-Graph/PrivGraph, ``main.py``, ``utils.py``, ``comm/``), not copied; sparse, so that
email-Enron's 36,692 nodes need no dense n × n matrix.

Stages (ε split ``e1 = e2 = ε/3``, ``e3 = ε - e1 - e2``; ``N = 20``, ``t = 1``):

1. *Community initialisation* (``e1``): nodes shuffled into groups of ``N``; the group graph's
   off-diagonal edge counts get Laplace(1/e1), its diagonal (twice the intra-group edges)
   Laplace(2/e1); each vector is truncated to integers and post-processed by ``norm_sub``;
   Louvain (resolution ``t``) on the noisy weighted group graph; a node takes its group's label.
2. *Community adjustment* (``e2``): one pass over the nodes in random order; each node leaves
   its community and joins community ``c`` with probability ``∝ exp(e2/4 · (k_c − k_own))``,
   ``k_c`` its neighbours in ``c``, over every non-empty community.
3. *Information extraction* (``e3``): inter-community edge counts + Laplace(1/e3) (truncated,
   ``norm_sub``); every community's intra-community degree sequence + Laplace(2/e3) (truncated,
   ``norm_sub``, clipped to ``[0, size − 1]``).
4. *Reconstruction*: Chung–Lu inside each community (``P = min(1, d_i d_j / Σd)``); the noisy
   count of edges between communities ``i < j`` drawn as uniform pairs with replacement — with
   the published code's quirk: the first endpoint is drawn from the *last* community (the loop
   reuses a member list of an earlier loop), and the pairs falling inside the last community are
   overwritten by its intra-community block. ``../shared/BENCHMARKS.md`` explains why the
   baseline keeps it.

Randomness is numpy's (a baseline, not a release). Louvain is networkx's
``louvain_communities`` where the authors call python-louvain's ``best_partition`` (the same
method; the random tie-breaking differs).
"""

from __future__ import annotations

import networkx as nx
import numba
import numpy as np

from dpatlas.graph.input.edgegraph import EdgeGraph

__all__ = ["chung_lu", "norm_sub", "privgraph"]


def chung_lu(weights: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """Edges ``(i, j)``, ``i < j``, each present independently with ``min(1, w_i w_j / S)``.

    ``S = Σ w``; no self-loops. The expected degree of ``i`` is about ``w_i`` (Chung & Lu 2002).
    Returns an int64 array of shape (m, 2) of indices into ``weights``.

    Examples
    --------
    >>> e = chung_lu(np.full(1000, 10.0), np.random.default_rng(0))
    >>> 4_800 < len(e) < 5_200, bool((e[:, 0] < e[:, 1]).all())
    (True, True)
    """
    w = np.asarray(weights, dtype=np.float64)
    total = float(w.sum())
    if w.size < 2 or total <= 0:
        return np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(-w, kind="stable")
    ws = w[order]
    cap = int(total / 2 + 6 * np.sqrt(total) + 64)
    while True:
        u, v, count = _miller_hagberg(ws, total, cap, int(gen.integers(2**31)))
        if count >= 0:
            break
        cap *= 2
    pairs = np.column_stack([order[u[:count]], order[v[:count]]])
    return np.sort(pairs, axis=1)


@numba.njit(cache=True, nogil=True)
def _miller_hagberg(
    w: np.ndarray, total: float, cap: int, seed: int
) -> tuple[np.ndarray, np.ndarray, int]:  # pragma: no cover (compiled)
    """Chung–Lu edges over weights sorted decreasingly; ``count = -1`` when ``cap`` is short."""
    np.random.seed(seed)  # noqa: NPY002 (numba: the compiled generator)
    n = w.size
    us = np.empty(cap, dtype=np.int64)
    vs = np.empty(cap, dtype=np.int64)
    count = 0
    for u in range(n - 1):
        if w[u] <= 0:
            break
        v = u + 1
        p = min(w[u] * w[v] / total, 1.0)
        while v < n and p > 0:
            if p < 1.0:
                r = np.random.random()  # noqa: NPY002
                v += int(np.floor(np.log(1.0 - r) / np.log(1.0 - p)))
            if v < n:
                q = min(w[u] * w[v] / total, 1.0)
                if np.random.random() < q / p:  # noqa: NPY002
                    if count == cap:
                        return us, vs, -1
                    us[count] = u
                    vs[count] = v
                    count += 1
                p = q
                v += 1
    return us, vs, count


def norm_sub(noisy: np.ndarray) -> np.ndarray:
    """The authors' ``norm_sub_deal``: truncate to int32, then lower every entry by the shift
    ``i < −min`` (clipping at 0) that keeps the sum closest to the truncated vector's sum."""
    data = np.asarray(noisy).astype(np.int32)
    low, total = int(data.min(initial=0)), int(data.sum(dtype=np.int64))
    if low >= 0:
        return data
    best, best_gap = data, None
    for shift in range(-low):
        cand = np.maximum(data - shift, 0)
        gap = abs(int(cand.sum(dtype=np.int64)) - total)
        if best_gap is None or gap < best_gap:
            best, best_gap = cand, gap
            if gap == 0:
                break
    return best


def _block_counts(g: EdgeGraph, labels: np.ndarray, k: int) -> np.ndarray:
    """``k × k`` edge counts between label classes (each edge once, off the diagonal once;
    the diagonal holds twice the intra-class edges, as ``np.sum(mat0[ix_(p, p)])``)."""
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    counts = np.zeros((k, k), dtype=np.int64)
    np.add.at(counts, (labels[rows], labels[g.indices]), 1)
    return counts  # symmetric; entry (a, b), a != b: edges between a and b


def _upper(k: int) -> tuple[np.ndarray, np.ndarray]:
    return np.triu_indices(k, 1)


def community_init(
    g: EdgeGraph, eps: float, size: int, t: float, gen: np.random.Generator
) -> np.ndarray:
    groups = np.arange(g.n) // size
    gen.shuffle(groups)
    k = int(groups.max()) + 1
    counts = _block_counts(g, groups, k)
    iu = _upper(k)
    off = norm_sub(counts[iu] + gen.laplace(0, 1 / eps, iu[0].size))
    diag = norm_sub((np.diag(counts) + gen.laplace(0, 2 / eps, k)).astype(np.int32))
    w = nx.Graph()
    w.add_nodes_from(range(k))
    keep = off > 0
    w.add_weighted_edges_from(
        zip(iu[0][keep].tolist(), iu[1][keep].tolist(), off[keep].tolist(), strict=True)
    )
    w.add_weighted_edges_from((i, i, int(x)) for i, x in enumerate(diag) if x > 0)
    parts = nx.community.louvain_communities(w, resolution=t, seed=int(gen.integers(2**31)))
    group_label = np.empty(k, dtype=np.int64)
    for c, members in enumerate(parts):
        group_label[list(members)] = c
    return group_label[groups]


def community_adjust(
    g: EdgeGraph, labels: np.ndarray, eps: float, gen: np.random.Generator
) -> np.ndarray:
    labels = labels.copy()
    k = int(labels.max()) + 1
    sizes = np.bincount(labels, minlength=k)
    c1 = eps / 4
    for u in gen.permutation(g.n):
        own = labels[u]
        alive = np.flatnonzero(sizes > 0)  # the communities before u leaves its own
        k_c = np.bincount(labels[g.indices[g.indptr[u] : g.indptr[u + 1]]], minlength=k)[alive]
        score = c1 * (k_c - k_c[np.searchsorted(alive, own)])
        p = np.exp(score - max(score.max(), 0.0))
        new = alive[gen.choice(alive.size, p=p / p.sum())]
        sizes[own] -= 1
        sizes[new] += 1
        labels[u] = new
    _, labels = np.unique(labels, return_inverse=True)
    return labels


def privgraph(
    g: EdgeGraph,
    epsilon: float,
    gen: np.random.Generator,
    *,
    e1_share: float = 1 / 3,
    e2_share: float = 1 / 3,
    size: int = 20,
    t: float = 1.0,
) -> np.ndarray:
    """One PrivGraph synthetic graph of ``g``: an (m, 2) int64 edge array on nodes ``0 .. n-1``."""
    e1, e2 = e1_share * epsilon, e2_share * epsilon
    e3 = (1 - e1_share - e2_share) * epsilon
    labels = community_adjust(g, community_init(g, e1, size, t, gen), e2, gen)
    k = int(labels.max()) + 1
    members = [np.flatnonzero(labels == c) for c in range(k)]
    counts = _block_counts(g, labels, k)
    iu = _upper(k)
    inter = norm_sub(counts[iu] + gen.laplace(0, 1 / e3, iu[0].size))
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    same = labels[rows] == labels[g.indices]
    intra_deg = np.bincount(rows[same], minlength=g.n)
    edges = []
    for nodes in members:
        noisy = (intra_deg[nodes] + gen.laplace(0, 2 / e3, nodes.size)).astype(np.int64)
        deg = np.clip(norm_sub(noisy), 0, nodes.size - 1)
        edges.append(nodes[chung_lu(deg.astype(np.float64), gen)])
    last = members[-1]
    for b, count in zip(iu[1], inter, strict=True):
        if count > 0 and b != k - 1:  # pairs inside the last community are overwritten (quirk)
            edges.append(np.column_stack([gen.choice(last, count), gen.choice(members[b], count)]))
    e = np.concatenate(edges) if edges else np.zeros((0, 2), dtype=np.int64)
    e = np.sort(e[e[:, 0] != e[:, 1]], axis=1)
    return np.unique(e, axis=0)
