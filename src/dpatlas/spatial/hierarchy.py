"""A released tree of blocks of the user's grid, and its post-processing.

Multi-level methods (:mod:`~dpatlas.spatial.adaptive`, :mod:`~dpatlas.spatial.privtree`) release
a :class:`Hierarchy`: nodes are index rectangles of the user's cells, the children of a node
partition it, the leaves partition the grid. A node carries a noisy count and the public variance
of its noise (``nan`` / ``inf`` when the node was not measured, ``0`` / ``0`` for a node with no
released cell, whose count is 0 for every dataset).

Everything here is post-processing: functions take the hierarchy (released values and public
variances) and never the sites.

* :func:`least_squares`: the weighted least-squares (BLUE) counts that are consistent
  (every parent equals the sum of its children), in two linear passes (Hay, Rastogi, Miklau,
  Suciu 2010, with per-node variances).
* :func:`nonnegative`: non-negative, still consistent, preserving the root total.
* :func:`integer_counts`: integers, still consistent, preserving the rounded root total.
* :func:`to_cells`: leaf values spread over the released cells of each leaf.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

from dpatlas.spatial._groups import project_groups, round_groups
from dpatlas.spatial.grid import Grid

__all__ = ["Hierarchy", "integer_counts", "least_squares", "nonnegative", "to_cells"]


def _frozen(values: Any, dtype: Any) -> np.ndarray:
    array = np.array(values, dtype=dtype)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Hierarchy:
    """Nodes of a released tree over the user's grid, parents before children.

    Attributes
    ----------
    r0, r1, c0, c1 : numpy.ndarray
        Node ``i`` is the cells ``rows [r0[i], r1[i]) × cols [c0[i], c1[i])`` (row 0 north).
    parent : numpy.ndarray
        Index of the parent node, ``-1`` for the root (node 0); ``parent[i] < i``.
    noisy : numpy.ndarray
        Released noisy count of each node, ``nan`` when the node was not measured.
    variance : numpy.ndarray
        Public variance of that noise: ``inf`` when not measured, ``0`` when exact (no cell).
    n_released : numpy.ndarray
        Number of released cells in the node (public: a property of the grid).

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[2, 1, 2], parent=[-1, 0, 0],
    ...               noisy=[10.0, 4.0, 4.0], variance=[2.0, 2.0, 2.0], n_released=[2, 1, 1])
    >>> h.is_leaf.tolist(), h.depth.tolist()
    ([False, True, True], [0, 1, 1])
    >>> least_squares(h).round(3).tolist()
    [9.333, 4.667, 4.667]
    """

    r0: np.ndarray
    r1: np.ndarray
    c0: np.ndarray
    c1: np.ndarray
    parent: np.ndarray
    noisy: np.ndarray
    variance: np.ndarray
    n_released: np.ndarray

    def __post_init__(self) -> None:
        for f in fields(self):
            dtype = np.float64 if f.name in ("noisy", "variance") else np.int64
            object.__setattr__(self, f.name, _frozen(getattr(self, f.name), dtype))
        n = self.parent.size
        if any(getattr(self, f.name).shape != (n,) for f in fields(self)):
            raise ValueError("all node arrays of a Hierarchy must be 1-D of one length")
        if n == 0 or self.parent[0] != -1 or (self.parent[1:] >= np.arange(1, n)).any():
            raise ValueError("parent must list node 0 as the root (-1) and parents before children")
        if (self.parent[1:] < 0).any():
            raise ValueError("a Hierarchy has a single root, node 0")
        leaf = self.is_leaf
        if np.isinf(self.variance[leaf]).any():
            raise ValueError("every leaf must be measured (finite variance) or exact (variance 0)")

    @property
    def size(self) -> int:
        """Number of nodes."""
        return int(self.parent.size)

    @property
    def is_leaf(self) -> np.ndarray:
        """True for nodes without children."""
        has_child = np.zeros(self.size, dtype=bool)
        has_child[self.parent[1:]] = True
        return ~has_child

    @property
    def depth(self) -> np.ndarray:
        """Depth of each node (root 0)."""
        depth = np.zeros(self.size, dtype=np.int64)
        parent = self.parent[1:]
        while True:
            deeper = np.r_[0, depth[parent] + 1]
            if np.array_equal(deeper, depth):
                return depth
            depth = deeper

    def levels(self) -> list[np.ndarray]:
        """Node indices by depth, root first."""
        depth = self.depth
        return [np.flatnonzero(depth == d) for d in range(int(depth.max()) + 1)]

    def to_metadata(self) -> dict[str, np.ndarray]:
        """The node arrays by name, for a release's ``metadata["hierarchy"]``."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_metadata(cls, data: Mapping[str, Any]) -> Hierarchy:
        """Rebuild from :meth:`to_metadata` output (arrays or JSON lists; ``None`` as ``nan``)."""
        values = {f.name: data[f.name] for f in fields(cls)}
        for name in ("noisy", "variance"):
            values[name] = [np.nan if v is None else v for v in np.asarray(values[name]).tolist()]
        return cls(**values)


def least_squares(h: Hierarchy) -> np.ndarray:
    """Consistent node counts of least weighted squared error (the BLUE under independent noise).

    Upward pass: each node's estimate of its own total from its subtree, ``z = (y/v + S/W) /
    (1/v + 1/W)`` with ``S``, ``W`` the sum of its children's ``z`` and of their variances
    ``w`` (just ``S`` when the node was not measured), and ``w = 1 / (1/v + 1/W)``. Downward
    pass: the root keeps ``z``; a child gets ``z_c + (w_c / W)(x_parent - S)``, sharing the
    parent's correction in proportion to the children's variances. This is Hay et al.'s (2010)
    two-pass algorithm with per-node variances; with equal variances it is theirs exactly.
    Exact nodes (variance 0) keep their value and take no correction.
    """
    y = np.where(np.isnan(h.noisy), 0.0, h.noisy)
    v = h.variance
    z, w = np.zeros(h.size), np.zeros(h.size)
    child_sum, child_var = np.zeros(h.size), np.zeros(h.size)
    leaf = h.is_leaf
    levels = h.levels()
    for idx in reversed(levels):
        own_y, own_v, s, big_w = y[idx], v[idx], child_sum[idx], child_var[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            pooled_w = 1.0 / (1.0 / own_v + 1.0 / big_w)
            pooled_z = pooled_w * (own_y / own_v + s / big_w)
        zi = np.where(np.isinf(own_v), s, np.where(own_v == 0, own_y, pooled_z))
        wi = np.where(np.isinf(own_v), big_w, np.where(own_v == 0, 0.0, pooled_w))
        exact_children = ~leaf[idx] & (big_w == 0)
        zi = np.where(exact_children, s, zi)
        wi = np.where(exact_children, 0.0, wi)
        z[idx] = np.where(leaf[idx], own_y, zi)
        w[idx] = np.where(leaf[idx], own_v, wi)
        if idx[0] != 0:
            np.add.at(child_sum, h.parent[idx], z[idx])
            np.add.at(child_var, h.parent[idx], w[idx])
    x = z.copy()
    for idx in levels[1:]:
        p = h.parent[idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(child_var[p] > 0, w[idx] / child_var[p], 0.0)
        x[idx] = z[idx] + share * (x[p] - child_sum[p])
    return x


def _top_down(
    h: Hierarchy, values: np.ndarray, root: float, step: Any, dtype: Any = np.float64
) -> np.ndarray:
    """Apply ``step(children values, group ids, parent targets)`` level by level from the root."""
    out = np.zeros(h.size, dtype=dtype)
    out[0] = root
    for idx in h.levels()[1:]:
        live = idx[h.n_released[idx] > 0]
        parents, group = np.unique(h.parent[live], return_inverse=True)
        out[live] = step(values[live], group, out[parents])
    return out


def nonnegative(h: Hierarchy, values: np.ndarray) -> np.ndarray:
    """Non-negative consistent counts with the root total of ``values`` (0 if negative).

    Top-down: the root keeps ``max(total, 0)``; the children of each node are projected by
    least squares onto the non-negative vectors that sum to the node's new value
    (:func:`~dpatlas.spatial._groups.project_groups`). So every node total is preserved when
    it can be (it is non-negative and its parent's was preserved) and a negative count is
    absorbed by its siblings, close to where it arose, rather than across the map. Plain
    clamping at 0 would instead inflate the total (BENCHMARKS.md: +20% at N = 10⁴, ε = 1).
    """
    values = np.asarray(values, dtype=np.float64)
    return _top_down(h, values, max(float(values[0]), 0.0), project_groups)


def integer_counts(h: Hierarchy, values: np.ndarray) -> np.ndarray:
    """Non-negative consistent integers from non-negative consistent ``values``.

    The root is rounded to the nearest integer; top-down, each node's children are floored
    and the shortfall goes to the largest remainders, so parents still equal the sum of their
    children and the total is the rounded total.
    """
    values = np.asarray(values, dtype=np.float64)
    root = int(np.floor(max(float(values[0]), 0.0) + 0.5))
    return _top_down(h, values, root, round_groups, np.int64)


def leaf_of_cell(h: Hierarchy, shape: tuple[int, int]) -> np.ndarray:
    """``ny × nx`` index of the leaf holding each cell (the leaves tile the grid)."""
    leaves = np.flatnonzero(h.is_leaf)
    ids = leaves + 1
    marks = np.zeros((shape[0] + 1, shape[1] + 1), dtype=np.int64)
    np.add.at(marks, (h.r0[leaves], h.c0[leaves]), ids)
    np.add.at(marks, (h.r0[leaves], h.c1[leaves]), -ids)
    np.add.at(marks, (h.r1[leaves], h.c0[leaves]), -ids)
    np.add.at(marks, (h.r1[leaves], h.c1[leaves]), ids)
    return marks.cumsum(axis=0).cumsum(axis=1)[: shape[0], : shape[1]] - 1


def to_cells(h: Hierarchy, values: np.ndarray, grid: Grid, *, integer: bool = False) -> np.ndarray:
    """Per-released-cell values (row-major over ``grid.released``): leaf values spread evenly.

    A leaf's value is divided equally among its released cells, the usual uniformity
    assumption inside a leaf. With ``integer=True`` (``values`` non-negative integers) each
    leaf's count is split into integers by largest remainders, so the cells still sum to it.
    """
    leaf = leaf_of_cell(h, grid.shape)[grid.released]
    values = np.asarray(values)
    share = values[leaf] / np.maximum(h.n_released[leaf], 1)
    if not integer:
        return share
    leaves, group = np.unique(leaf, return_inverse=True)
    return round_groups(share, group, values[leaves].astype(np.int64))
