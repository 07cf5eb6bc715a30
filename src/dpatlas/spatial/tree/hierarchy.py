"""A released tree of blocks of the user's grid, and its post-processing.

Multi-level methods (:mod:`~dpatlas.spatial.methods.adaptive`, :mod:`~dpatlas.spatial.methods.privtree`) release
a :class:`Hierarchy`: nodes are index rectangles of the user's cells, the children of a node
partition it, the leaves partition the grid. A node carries a noisy count and the public variance
of its noise (``nan`` / ``inf`` when the node was not measured, ``0`` / ``0`` for a node with no
released cell, whose count is 0 for every dataset).

Everything here is post-processing: functions take the hierarchy (released values and public
variances) and never the sites.

* :func:`least_squares`: the weighted least-squares (BLUE) counts that are consistent
  (every parent equals the sum of its children), in two linear passes (Hay, Rastogi, Miklau,
  Suciu 2010, with per-node variances).
* :func:`query_variance`: the exact noise variance of any linear query of those counts.

Non-negative and integer counts, and cell values, are in :mod:`~dpatlas.spatial.tree.estimates`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, NamedTuple

import numpy as np

__all__ = ["Hierarchy", "least_squares", "query_variance", "subtree_estimates"]


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
        """The node arrays by name, for a release's ``metadata["hierarchy"]``.

        Unmeasured nodes are stored as ``measured = False`` with 0 in ``noisy`` and
        ``variance``, so the metadata holds finite numbers only (strict JSON).
        """
        measured = np.isfinite(self.variance)
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["noisy"] = np.where(measured, self.noisy, 0.0)
        out["variance"] = np.where(measured, self.variance, 0.0)
        out["measured"] = measured
        return out

    @classmethod
    def from_metadata(cls, data: Mapping[str, Any]) -> Hierarchy:
        """Rebuild from :meth:`to_metadata` output (numpy arrays or JSON lists)."""
        values = {f.name: np.asarray(data[f.name]) for f in fields(cls)}
        measured = np.asarray(data["measured"], dtype=bool)
        values["noisy"] = np.where(measured, values["noisy"].astype(np.float64), np.nan)
        values["variance"] = np.where(measured, values["variance"].astype(np.float64), np.inf)
        return cls(**values)


class _Passes(NamedTuple):
    """The linear maps of the two passes: ``z = a·y + b·S`` up, ``x_c = z_c + g_c·(x_p - S_p)`` down.

    ``w`` is the variance of ``z``.
    """

    levels: list[np.ndarray]
    a: np.ndarray
    b: np.ndarray
    g: np.ndarray
    z: np.ndarray
    w: np.ndarray
    child_sum: np.ndarray


def _passes(h: Hierarchy) -> _Passes:
    y = np.where(np.isnan(h.noisy), 0.0, h.noisy)
    v = h.variance
    a, b, w, z = (np.zeros(h.size) for _ in range(4))
    child_sum, child_var = np.zeros(h.size), np.zeros(h.size)
    leaf = h.is_leaf
    levels = h.levels()
    for idx in reversed(levels):
        own_v, big_w = v[idx], child_var[idx]
        own_only = leaf[idx] | ((own_v == 0) & (big_w > 0))
        sum_only = ~own_only & (np.isinf(own_v) | (big_w == 0))
        mixed = ~own_only & ~sum_only
        with np.errstate(divide="ignore", invalid="ignore"):
            pooled = 1.0 / (1.0 / own_v + 1.0 / big_w)
            a[idx] = np.where(own_only, 1.0, np.where(mixed, pooled / own_v, 0.0))
            b[idx] = np.where(sum_only, 1.0, np.where(mixed, pooled / big_w, 0.0))
        w[idx] = np.where(own_only, own_v, np.where(mixed, pooled, big_w))
        z[idx] = a[idx] * y[idx] + b[idx] * child_sum[idx]
        if idx[0] != 0:
            np.add.at(child_sum, h.parent[idx], z[idx])
            np.add.at(child_var, h.parent[idx], w[idx])
    parent_var = child_var[np.maximum(h.parent, 0)]
    with np.errstate(divide="ignore", invalid="ignore"):
        g = np.where(parent_var > 0, w / parent_var, 0.0)
    return _Passes(levels, a, b, g, z, w, child_sum)


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
    passes = _passes(h)
    x = passes.z.copy()
    for idx in passes.levels[1:]:
        p = h.parent[idx]
        x[idx] += passes.g[idx] * (x[p] - passes.child_sum[p])
    return x


def subtree_estimates(h: Hierarchy) -> tuple[np.ndarray, np.ndarray]:
    """Each node's count estimated from its own subtree's measurements only, and its variance.

    The upward pass of :func:`least_squares`: a node's own noisy count (if measured) pooled
    with the sum of its children's subtree estimates, weighted by their public variances. It
    uses no measurement outside the node, so it answers "what does this region's own
    release say about it". For a tree with only its leaves measured it is the sum of the
    leaves below, with the sum of their variances. Public: released values and variances.

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[2, 1, 2], parent=[-1, 0, 0],
    ...               noisy=[np.nan, 4.0, 1.0], variance=[np.inf, 2.0, 2.0], n_released=[2, 1, 1])
    >>> own, var = subtree_estimates(h)
    >>> own.tolist(), var.tolist()
    ([5.0, 4.0, 1.0], [4.0, 2.0, 2.0])
    """
    passes = _passes(h)
    return passes.z, passes.w


def query_variance(h: Hierarchy, weights: np.ndarray) -> float:
    """Exact noise variance of ``Σ_i weights[i]·x_i``, ``x`` the :func:`least_squares` counts.

    The least-squares counts are linear in the noisy values, ``x = A·y``, so the query is
    ``(Aᵀq)·y`` with variance ``Σ_j (Aᵀq)_j² v_j``. ``Aᵀq`` is computed by running the two
    passes backwards (reverse-mode differentiation of a linear map), in time linear in the
    tree. Public: it depends on the tree and the noise variances only.

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[2, 1, 2], parent=[-1, 0, 0],
    ...               noisy=[10.0, 4.0, 4.0], variance=[2.0, 2.0, 2.0], n_released=[2, 1, 1])
    >>> [round(query_variance(h, np.array(q)), 4) for q in ([1.0, 0, 0], [0, 1.0, 0], [0, 1.0, 1.0])]
    [1.3333, 1.3333, 1.3333]
    """
    passes = _passes(h)
    x_bar = np.asarray(weights, dtype=np.float64).copy()
    z_bar, s_bar = np.zeros(h.size), np.zeros(h.size)
    for idx in reversed(passes.levels[1:]):
        p, share = h.parent[idx], passes.g[idx] * x_bar[idx]
        z_bar[idx] += x_bar[idx]
        np.add.at(x_bar, p, share)
        np.add.at(s_bar, p, -share)
    z_bar[0] += x_bar[0]
    y_bar = np.zeros(h.size)
    for idx in passes.levels:
        if idx[0] != 0:
            z_bar[idx] += s_bar[h.parent[idx]]
        y_bar[idx] = passes.a[idx] * z_bar[idx]
        s_bar[idx] += passes.b[idx] * z_bar[idx]
    seen = np.isfinite(h.variance)
    return float((y_bar[seen] ** 2 * h.variance[seen]).sum())
