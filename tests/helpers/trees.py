"""Random released trees for tests of the tree post-processing (seeded, not private)."""

from __future__ import annotations

import numpy as np

from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["children_sums", "random_tree"]


def random_tree(gen: np.random.Generator, *, side: int = 8, measured: float = 0.7) -> Hierarchy:
    """A random quadtree over a ``side × side`` grid with random noisy values and variances."""
    nodes = [(0, side, 0, side, -1)]
    i = 0
    while i < len(nodes):
        r0, r1, c0, c1, _ = nodes[i]
        if r1 - r0 > 1 and gen.random() < 0.6:
            rm, cm = (r0 + r1) // 2, (c0 + c1) // 2
            nodes += [
                (a, b, c, d, i) for a, b in ((r0, rm), (rm, r1)) for c, d in ((c0, cm), (cm, c1))
            ]
        i += 1
    r0, r1, c0, c1, parent = (np.array(v) for v in zip(*nodes, strict=True))
    leaf = np.ones(len(nodes), dtype=bool)
    leaf[parent[1:]] = False
    observe = leaf | (gen.random(len(nodes)) < measured)
    variance = np.where(observe, gen.uniform(0.5, 4.0, len(nodes)), np.inf)
    noisy = np.where(observe, gen.normal(5, 3, len(nodes)), np.nan)
    n_cells = (r1 - r0) * (c1 - c0)
    return Hierarchy(r0, r1, c0, c1, parent, noisy, variance, n_cells)


def children_sums(h: Hierarchy, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    internal = np.flatnonzero(~h.is_leaf)
    sums = np.zeros(h.size)
    np.add.at(sums, h.parent[1:], values[1:])
    return values[internal], sums[internal]
