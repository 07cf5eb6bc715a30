"""Brute-force triangle sensitivities from the definitions, for tests: every graph on a few nodes
as a bitmask over its pairs, local sensitivity by flipping every pair, LS(s) over balls."""

from __future__ import annotations

import functools
import itertools

import networkx as nx
import numpy as np

__all__ = [
    "brute_ls",
    "brute_ls_ball",
    "graph_of",
    "ls_table",
    "mask_of",
    "nrs_formula",
    "pairs_of",
    "triangles_of_masks",
]


@functools.cache
def pairs_of(n: int) -> tuple[tuple[int, int], ...]:
    return tuple(itertools.combinations(range(n), 2))


def triangles_of_masks(masks: np.ndarray, n: int) -> np.ndarray:
    """Triangle count of each graph given as a bitmask over the pairs of ``pairs_of(n)``."""
    index = {p: e for e, p in enumerate(pairs_of(n))}
    out = np.zeros(masks.shape, dtype=np.int64)
    for i, j, k in itertools.combinations(range(n), 3):
        out += (masks >> index[i, j]) & (masks >> index[i, k]) & (masks >> index[j, k]) & 1
    return out


def brute_ls(masks: np.ndarray, n: int) -> np.ndarray:
    """Local sensitivity of each graph: max |T(G with one pair flipped) - T(G)| over all pairs."""
    bits = np.int64(1) << np.arange(len(pairs_of(n)), dtype=np.int64)
    if bits.size == 0:
        return np.zeros(masks.shape, dtype=np.int64)
    flipped = triangles_of_masks(masks[..., None] ^ bits, n)
    return np.abs(flipped - triangles_of_masks(masks, n)[..., None]).max(axis=-1)


@functools.cache
def ls_table(n: int, s_max: int) -> np.ndarray:
    """``table[s, mask]`` = LS(s) of every graph on ``n`` nodes (max over the ball of radius s)."""
    masks = np.arange(1 << len(pairs_of(n)), dtype=np.int64)
    rows = [brute_ls(masks, n)]
    for _ in range(s_max):
        prev = rows[-1]
        nxt = prev.copy()
        for e in range(len(pairs_of(n))):
            np.maximum(nxt, prev[masks ^ (1 << e)], out=nxt)
        rows.append(nxt)
    return np.array(rows)


def brute_ls_ball(gx: nx.Graph, s: int) -> int:
    """LS(s) of one graph by listing every graph within ``s`` flips (any n up to ~9)."""
    n = gx.number_of_nodes()
    mask = mask_of(gx)
    ball = [mask]
    for k in range(1, s + 1):
        for flips in itertools.combinations(range(len(pairs_of(n))), k):
            ball.append(mask ^ sum(1 << e for e in flips))
    return int(brute_ls(np.array(ball, dtype=np.int64), n).max())


def mask_of(gx: nx.Graph) -> int:
    return sum(
        1 << e for e, (i, j) in enumerate(pairs_of(gx.number_of_nodes())) if gx.has_edge(i, j)
    )


def graph_of(mask: int, n: int) -> nx.Graph:
    gx = nx.empty_graph(n)
    gx.add_edges_from(p for e, p in enumerate(pairs_of(n)) if mask >> e & 1)
    return gx


def nrs_formula(gx: nx.Graph, s: np.ndarray) -> np.ndarray:
    """max over ALL pairs of min(a + floor((s + min(s, b)) / 2), n - 2) from dense matrices."""
    n = gx.number_of_nodes()
    if n < 3:
        return np.zeros_like(s)
    a = nx.to_numpy_array(gx, nodelist=range(n), dtype=np.int64)
    i, j = np.triu_indices(n, 1)
    common, d = (a @ a)[i, j], a.sum(axis=1)
    b = d[i] + d[j] - 2 * common - 2 * a[i, j]
    vals = common + (s[:, None] + np.minimum(s[:, None], b)) // 2
    return np.minimum(vals, n - 2).max(axis=1)
