"""PrivTree heatmaps (Zhang, Xiao, Xie, SIGMOD 2016): a private quadtree with no height limit.

The root is the user's whole grid; a node is a block of the user's cells and splits into (up to)
four halves by rows and columns. A node splits when its biased count plus noise exceeds the
threshold (:mod:`~dpatlas.spatial.methods._splitrule`): dense areas are cut down to single cells,
sparse ones stay coarse, and the tree costs ``ε_tree`` whatever its depth. Each leaf's count is
then released with discrete Laplace noise at ``ε - ε_tree`` and spread evenly over its released
cells; the tree is kept (``metadata["hierarchy"]``) for region queries and post-processing.
"""

from __future__ import annotations

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon, split
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods import SiteCounts, register_check, register_method
from dpatlas.spatial.methods._cells import cell_grid, prefix_sums, rect_sums
from dpatlas.spatial.methods._splitrule import SplitRule, split_rule
from dpatlas.spatial.methods._tree_release import tree_release
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["check_privtree", "grow_tree", "privtree_release"]


def _halves(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and end of both halves of ``[lo, hi)``; a single cell is not halved (empty 2nd)."""
    mid = (lo + hi + 1) // 2
    return np.stack([lo, mid]), np.stack([mid, hi])


def grow_tree(
    counts: np.ndarray, released: np.ndarray, rule: SplitRule, source: RandomSource
) -> dict[str, np.ndarray]:
    """Grow the PrivTree partition of the ``ny × nx`` grid; returns node arrays (private counts).

    Level by level, every node that holds a released cell and more than one cell is tested
    with :meth:`SplitRule.decide`; the others are leaves by a data-independent rule. A split
    node's children are its halves by rows and by columns (a side of one cell is not halved),
    so the fanout is 4 inside the grid and 2 or 1 along a thin side; the privacy proof does
    not depend on the fanout (only the bias ``δ = λ ln β`` does, with ``β = 4``).
    """
    count_table, cell_table = prefix_sums(counts), prefix_sums(released)
    ny, nx = counts.shape
    keys = ("r0", "r1", "c0", "c1", "parent")
    level = [np.array([v], dtype=np.int64) for v in (0, ny, 0, nx, -1)]
    nodes: list[list[np.ndarray]] = []
    first, depth = 0, 0
    while level[0].size:
        nodes.append(level)
        r0, r1, c0, c1, _ = level
        n_cells = rect_sums(cell_table, r0, r1, c0, c1)
        test = np.flatnonzero((n_cells > 0) & ((r1 - r0 > 1) | (c1 - c0 > 1)))
        exact = rect_sums(count_table, r0[test], r1[test], c0[test], c1[test])
        split = test[rule.decide(exact, depth, source)]
        (rs0, rs1), (re0, re1) = _halves(r0[split], r1[split])
        (cs0, cs1), (ce0, ce1) = _halves(c0[split], c1[split])
        children = [
            np.stack(parts, axis=1).ravel()
            for parts in (
                (rs0, rs0, rs1, rs1),
                (re0, re0, re1, re1),
                (cs0, cs1, cs0, cs1),
                (ce0, ce1, ce0, ce1),
            )
        ]
        children.append(np.repeat(first + split, 4))
        nonempty = (children[1] > children[0]) & (children[3] > children[2])
        first += r0.size
        level = [a[nonempty] for a in children]
        depth += 1
    out = {k: np.concatenate([lv[i] for lv in nodes]) for i, k in enumerate(keys)}
    box = (out["r0"], out["r1"], out["c0"], out["c1"])
    out["count"] = rect_sums(count_table, *box)
    out["n_released"] = rect_sums(cell_table, *box)
    return out


def _plan(
    epsilon: float,
    sensitivity: int,
    budget: Budget | None,
    *,
    tree_fraction: float,
    theta: float | None,
    theta_levels: float,
) -> tuple[Charge, SplitRule, float, float]:
    """The open charge, the split rule and ``(ε_tree, ε_leaf)``, from public values only."""
    if not (isinstance(tree_fraction, float) and 0.0 < tree_fraction < 1.0):
        raise ValueError(f"tree_fraction must be a float in (0, 1), got {tree_fraction!r}")
    if theta is not None and theta_levels != 1.0:
        raise ValueError(
            f"give theta (counts) or theta_levels (levels of bias), not both: got theta={theta!r}, "
            f"theta_levels={theta_levels!r}"
        )
    eps_tree, eps_leaf = split(epsilon, [tree_fraction, 1.0 - tree_fraction])  # sum <= ε
    rule = split_rule(eps_tree, sensitivity=sensitivity, theta=theta, theta_levels=theta_levels)
    charge = open_charge(
        Cost.pure(eps_tree) + Cost.pure(eps_leaf),
        budget,
        mechanism="heatmap/privtree",
        note=f"tree ε={eps_tree:g} (any depth), leaf counts ε={eps_leaf:g}",
        scales=[sensitivity / exact_epsilon(eps_leaf)],
    )
    return charge, rule, eps_tree, eps_leaf


@register_check("privtree")
def check_privtree(
    grid: Grid,
    *,
    epsilon: float,
    sensitivity: int,
    tree_fraction: float,
    theta: float | None,
    theta_levels: float,
) -> Charge:
    """PrivTree's charge, with its options, its split rule and its leaf scale checked.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")
    >>> opts = {"tree_fraction": 0.5, "theta": None, "theta_levels": 1.0}
    >>> check_privtree(g, epsilon=1.0, sensitivity=1, **opts).cost.epsilon
    1.0
    >>> check_privtree(g, epsilon=1e-14, sensitivity=1, **opts)
    Traceback (most recent call last):
    ...
    ValueError: epsilon=1e-14 is too small for heatmap method 'privtree' ...; use epsilon >= 4.2443086125177e-12
    """
    return _plan(
        epsilon,
        sensitivity,
        None,
        tree_fraction=tree_fraction,
        theta=theta,
        theta_levels=theta_levels,
    )[0]


@register_method("privtree")
def privtree_release(
    data: SiteCounts,
    grid: Grid,
    *,
    epsilon: float,
    source: RandomSource,
    budget: Budget | None,
    tree_fraction: float = 0.5,
    theta: float | None = None,
    theta_levels: float = 1.0,
) -> Release:
    """PrivTree with ``ε_tree = tree_fraction·ε`` for the tree and the rest for the leaf counts.

    Registered as ``heatmap(..., method="privtree")``; ``method_options={"tree_fraction": f}``
    changes the split (default ε/2 + ε/2, the paper's; ``method="auto"`` uses ε/3 + 2ε/3,
    more accurate on DPBench, :data:`~dpatlas.spatial.methods.auto.PRIVTREE_OPTIONS`). ``theta`` is the
    public split threshold θ in counts; the default ``None`` is ``θ = -theta_levels·δ`` with
    ``theta_levels = 1`` (one level of bias below the paper's 0: a slightly deeper tree at the
    same cost, better on DPBench, docs/dpbench.md; ``"auto"`` uses 1.5). Give ``theta`` or
    ``theta_levels``, not both.

    Privacy (sequential composition, ``ε`` debited once, before any noise): the tree is
    ``ε_tree``-DP for one individual (``k`` sites, or ``2k`` under replace, by group privacy;
    proof in :mod:`~dpatlas.spatial.methods._splitrule`); given the tree, the leaves partition the
    released cells, so their count vector has L1 sensitivity ``k`` and discrete Laplace noise
    of scale ``k/ε_leaf`` makes it ``ε_leaf``-DP (parallel composition). Leaves without a
    released cell have count 0 for every dataset and get no noise. Total ``ε_tree + ε_leaf = ε``.
    Spreading leaf counts over cells is post-processing.

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> g = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")
    >>> counts = np.zeros(g.n_released, dtype=np.int64)
    >>> counts[:64] = 500
    >>> data = SiteCounts(counts, np.empty(0), np.empty(0), sensitivity=1)
    >>> rel = privtree_release(data, g, epsilon=1.0, source=get_source(3), budget=None)
    >>> rel.mechanism, rel.epsilon, rel.value.shape
    ('heatmap/privtree', 1.0, (4096,))
    >>> h = Hierarchy.from_metadata(rel.metadata["hierarchy"])
    >>> int(h.depth.max()), bool(rel.value[:64].min() > 450), bool(abs(rel.value.sum() - 32_000) < 500)
    (6, True, True)
    """
    charge, rule, eps_tree, eps_leaf = _plan(
        epsilon,
        data.sensitivity,
        budget,
        tree_fraction=tree_fraction,
        theta=theta,
        theta_levels=theta_levels,
    )
    charge.debit()
    counts = cell_grid(data.counts, grid)
    tree = grow_tree(counts, grid.released, rule, source)
    leaf = np.ones(tree["parent"].size, dtype=bool)
    leaf[tree["parent"][1:]] = False
    live = leaf & (tree["n_released"] > 0)
    leaves = discrete_laplace(
        tree["count"][live], sensitivity=data.sensitivity, epsilon=eps_leaf, rng=source
    )
    noisy = np.full(leaf.size, np.nan)
    noisy[leaf] = 0.0
    noisy[live] = leaves.value
    variance = np.where(leaf, 0.0, np.inf)
    variance[live] = leaves.variance()
    h = Hierarchy(
        **{k: tree[k] for k in ("r0", "r1", "c0", "c1", "parent", "n_released")},
        noisy=noisy,
        variance=variance,
    )
    metadata = {
        "epsilon_tree": eps_tree,
        "epsilon_leaves": eps_leaf,
        "split": {
            "lambda": rule.lam,
            "delta": rule.delta,
            "theta": rule.theta,
            "fanout": rule.fanout,
            "lattice": rule.lattice,
            "noise": "discrete_laplace",
        },
    }
    return tree_release(
        h,
        grid,
        charge=charge,
        sensitivity=data.sensitivity,
        seeded=source.seeded,
        leaf_scale=float(leaves.scale),  # type: ignore[arg-type]
        metadata=metadata,
    )
