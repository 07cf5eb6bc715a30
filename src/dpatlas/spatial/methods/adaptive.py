"""Adaptive-grid heatmaps (AG, Qardaji, Yang, Li, ICDE 2013): a coarse grid, refined where dense.

The user's grid cells are the finest resolution; AG works on blocks of them.

* Level 1: the ``ny × nx`` grid is cut into ``m₁ × m₁`` nearly equal blocks of whole cells
  (block sides differ by at most one cell; fewer blocks along a side shorter than ``m₁``;
  ``m₁x / m₁y`` follow the grid's aspect ratio), with ``m₁ = max(10, ⌈¼·sqrt(N·ε'/10)⌉)``.
  Each block's count gets discrete Laplace noise at ``ε₁ = α·ε'``.
* Level 2: a block with noisy count ``N'`` is cut into ``m₂ × m₂`` nearly equal sub-blocks of
  whole cells, ``m₂ = ⌈sqrt(max(N', 0)·ε₂/5)⌉`` (at least 1, at most the block's side in
  cells), each counted with noise at ``ε₂ = ε' - ε₁``.
* Both levels are combined by least squares (:func:`~dpatlas.spatial.tree.hierarchy.least_squares`),
  and sub-block counts are spread evenly over their released cells.

``N`` is never read un-noised: either the user gives it as public (``n_sites=``), or a slice
``ε_N`` of ε buys a noisy count of all sites (then ``ε' = ε - ε_N``; the noisy N also enters
the least squares as a measurement of the root).
"""

from __future__ import annotations

import math

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon, split
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods import SiteCounts, check_n_sites, register_check, register_method
from dpatlas.spatial.methods._cells import block_edges, cell_grid, prefix_sums, rect_sums
from dpatlas.spatial.methods._tree_release import tree_release
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["adaptive_release", "check_adaptive", "first_level_size"]


def first_level_size(n_sites: float, epsilon: float, shape: tuple[int, int]) -> tuple[int, int]:
    """Blocks ``(m₁y, m₁x)`` of level 1: ``m₁ = max(10, ⌈¼·sqrt(N·ε/10)⌉)`` cells per side.

    For a non-square grid the ``m₁²`` blocks are shared out by aspect ratio; a side never gets
    more blocks than it has cells.

    Examples
    --------
    >>> first_level_size(1e6, 1.0, (256, 256)), first_level_size(1e4, 1.0, (256, 512))
    ((80, 80), (7, 14))
    """
    m1 = max(10, math.ceil(0.25 * math.sqrt(max(n_sites, 0.0) * epsilon / 10)))
    ny, nx = shape
    ratio = math.sqrt(nx / ny)
    return max(1, min(ny, round(m1 / ratio))), max(1, min(nx, round(m1 * ratio)))


def _sub_blocks(
    r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray, m2: np.ndarray
) -> tuple[np.ndarray, ...]:
    """Children of every block: ``m₂ × m₂`` nearly equal sub-blocks (capped by the block's sides)."""
    my, mx = np.minimum(m2, r1 - r0), np.minimum(m2, c1 - c0)
    per = my * mx
    parent = np.repeat(np.arange(r0.size), per)
    k = np.arange(per.sum()) - np.repeat(np.cumsum(per) - per, per)
    i, j = k // mx[parent], k % mx[parent]
    h, w = (r1 - r0)[parent], (c1 - c0)[parent]
    my_p, mx_p = my[parent], mx[parent]
    rows = (r0[parent] + i * h // my_p, r0[parent] + (i + 1) * h // my_p)
    cols = (c0[parent] + j * w // mx_p, c0[parent] + (j + 1) * w // mx_p)
    return rows[0], rows[1], cols[0], cols[1], parent


def _noisy(
    counts: np.ndarray, n_cells: np.ndarray, k: int, eps: float, source: RandomSource
) -> tuple[np.ndarray, np.ndarray, float]:
    """Noisy counts of disjoint blocks (exact 0, variance 0, for blocks with no released cell)."""
    live = n_cells > 0
    release = discrete_laplace(counts[live], sensitivity=k, epsilon=eps, rng=source)
    noisy, variance = np.zeros(counts.size), np.zeros(counts.size)
    noisy[live], variance[live] = release.value, release.variance()
    return noisy, variance, float(release.scale)  # type: ignore[arg-type]


def _plan(
    epsilon: float,
    sensitivity: int,
    budget: Budget | None,
    *,
    n_sites: float | None,
    n_fraction: float,
    alpha: float,
) -> tuple[Charge, tuple[float, float, float]]:
    """The open charge and ``(ε_N, ε₁, ε₂)`` (``ε_N = 0`` for a public N), from public values."""
    for name, value in (("n_fraction", n_fraction), ("alpha", alpha)):
        if not (isinstance(value, float) and 0.0 < value < 1.0):
            raise ValueError(f"{name} must be a float in (0, 1), got {value!r}")
    if check_n_sites(n_sites) is None:  # parts with an exact sum <= ε
        eps_n, eps1, eps2 = split(
            epsilon, [n_fraction, *((1 - n_fraction) * s for s in (alpha, 1 - alpha))]
        )
    else:
        eps_n, (eps1, eps2) = 0.0, split(epsilon, [alpha, 1 - alpha])
    parts = [eps1, eps2, *([eps_n] if eps_n else [])]
    note = f"N ε={eps_n:g}, level 1 ε={eps1:g}, level 2 ε={eps2:g}"
    charge = open_charge(
        Cost.compose(Cost.pure(e) for e in parts), budget, mechanism="heatmap/adaptive",
        note=note, scales=[sensitivity / exact_epsilon(e) for e in parts],
    )  # fmt: skip
    return charge, (eps_n, eps1, eps2)


@register_check("adaptive")
def check_adaptive(
    grid: Grid,
    *,
    epsilon: float,
    sensitivity: int,
    n_sites: float | None,
    n_fraction: float,
    alpha: float,
) -> Charge:
    """AG's charge, with its options and the scales of its three parts checked.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")
    >>> opts = {"n_sites": None, "n_fraction": 0.02, "alpha": 0.5}
    >>> check_adaptive(g, epsilon=1.0, sensitivity=1, **opts).cost.epsilon
    1.0
    >>> check_adaptive(g, epsilon=1e-14, sensitivity=1, **opts)
    Traceback (most recent call last):
    ...
    ValueError: epsilon=1e-14 is too small for heatmap method 'adaptive' ...; use epsilon >= 4.440892098500627e-14
    """
    return _plan(epsilon, sensitivity, None, n_sites=n_sites, n_fraction=n_fraction, alpha=alpha)[0]


@register_method("adaptive")
def adaptive_release(
    data: SiteCounts,
    grid: Grid,
    *,
    epsilon: float,
    source: RandomSource,
    budget: Budget | None,
    n_sites: float | None = None,
    n_fraction: float = 0.02,
    alpha: float = 0.5,
) -> Release:
    """AG with ``ε_N = n_fraction·ε`` for N (0 when ``n_sites`` is public), then ``α``/``1-α``.

    Registered as ``heatmap(..., method="adaptive")``; ``method_options`` takes ``n_sites``
    (a public number of sites), ``n_fraction`` and ``alpha``.

    Privacy (sequential composition over three releases; ``ε`` is debited once, before any
    noise): the noisy N is one count, sensitivity ``k``, at ``ε_N``. Level 1 is a histogram
    over disjoint blocks (L1 sensitivity ``k``: one individual's ``k`` sites) at ``ε₁``. Level 2
    is again a histogram over disjoint sub-blocks at ``ε₂``; its partition depends only on the
    released level-1 counts and public inputs, so by adaptive composition it costs ``ε₂``.
    ``m₁`` reads only the noisy (or public) N. Total ``ε_N + ε₁ + ε₂ = ε``. Least squares and
    spreading are post-processing. Blocks without released cells are 0 for every dataset.

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> g = Grid.from_bounds((0, 0, 256, 256), cell_size=1, crs="EPSG:3035")
    >>> counts = np.zeros(g.n_released, dtype=np.int64)
    >>> counts[::97] = 150
    >>> data = SiteCounts(counts, np.empty(0), np.empty(0), sensitivity=1)
    >>> rel = adaptive_release(data, g, epsilon=1.0, source=get_source(0), budget=None)
    >>> rel.mechanism, rel.metadata["level1_blocks"], rel.metadata["n_sites_public"]
    ('heatmap/adaptive', [25, 25], False)
    """
    k = data.sensitivity
    charge, (eps_n, eps1, eps2) = _plan(
        epsilon, k, budget, n_sites=n_sites, n_fraction=n_fraction, alpha=alpha
    )
    n_sites = check_n_sites(n_sites)
    eps_grid = eps1 + eps2
    charge.debit()
    counts, released = cell_grid(data.counts, grid), grid.released
    count_table, cell_table = prefix_sums(counts), prefix_sums(released)
    root_noisy, root_var = np.nan, np.inf
    if n_sites is None:
        total = discrete_laplace(int(data.counts.sum()), sensitivity=k, epsilon=eps_n, rng=source)
        n_sites, root_noisy, root_var = max(total.value, 0), float(total.value), total.variance()
    my, mx = first_level_size(float(n_sites), eps_grid, grid.shape)
    ry, rx = block_edges(grid.ny, my), block_edges(grid.nx, mx)
    r0, c0 = (a.ravel() for a in np.meshgrid(ry[:-1], rx[:-1], indexing="ij"))
    r1, c1 = (a.ravel() for a in np.meshgrid(ry[1:], rx[1:], indexing="ij"))
    cells1 = rect_sums(cell_table, r0, r1, c0, c1)
    noisy1, var1, _ = _noisy(rect_sums(count_table, r0, r1, c0, c1), cells1, k, eps1, source)
    m2 = np.ceil(np.sqrt(np.maximum(noisy1, 0) * eps2 / 5)).astype(np.int64)
    s0, s1, t0, t1, parent = _sub_blocks(r0, r1, c0, c1, np.maximum(m2, 1))
    cells2 = rect_sums(cell_table, s0, s1, t0, t1)
    noisy2, var2, scale2 = _noisy(rect_sums(count_table, s0, s1, t0, t1), cells2, k, eps2, source)
    n1 = r0.size
    h = Hierarchy(
        r0=np.r_[0, r0, s0],
        r1=np.r_[grid.ny, r1, s1],
        c0=np.r_[0, c0, t0],
        c1=np.r_[grid.nx, c1, t1],
        parent=np.r_[-1, np.zeros(n1, dtype=np.int64), parent + 1],
        noisy=np.r_[root_noisy, noisy1, noisy2],
        variance=np.r_[root_var, var1, var2],
        n_released=np.r_[grid.n_released, cells1, cells2],
    )
    metadata = {
        "epsilon_n": eps_n,
        "epsilon_level1": eps1,
        "epsilon_level2": eps2,
        "n_sites_public": eps_n == 0.0,
        "level1_blocks": [my, mx],
    }
    return tree_release(
        h,
        grid,
        charge=charge,
        sensitivity=k,
        seeded=source.seeded,
        leaf_scale=scale2,
        metadata=metadata,
    )
