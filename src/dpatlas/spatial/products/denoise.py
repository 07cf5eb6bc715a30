"""Per-cell estimates of a one-level map: the posterior median under an empirical-Bayes prior.

A uniform-grid release holds ``y_i = c_i + Z_i`` per cell: the exact count ``c_i`` plus discrete
Laplace noise ``P(Z = k) ∝ p^|k|``, ``p = exp(-1/scale)``, with the public scale of the release.
Read one cell at a time, ``y_i`` is unbiased but noisy (and often negative); read together, the
cells show how counts are distributed over the map, and that is a prior for each cell (Robbins
1956). For a planner who asks "how many sites are in this cell?" and counts absolute errors, the
best guess under a prior is the posterior median. :func:`posterior_medians` computes it:

1. **Groups by neighbourhood.** Cells are ranked by the mean released value of their released
   neighbours in a ``window × window`` box (the cell's own value left out) and cut at the
   quantiles of that mean into ``groups`` groups: cells in busy neighbourhoods get a prior of
   their own. No group is smaller than :data:`CELLS_PER_GROUP` cells (a prior needs data).
2. **A prior per group** on the counts ``0, 1, 2, ...``: the nonparametric maximum-likelihood
   estimate (Kiefer and Wolfowitz 1956; Jiang and Zhang 2009; Koenker and Mizera 2014;
   :mod:`~dpatlas.spatial.products._npmle`), computed by EM (Laird 1978, accelerated by
   SQUAREM) over the lattice of counts spanned by the group's values; the EM convolutions
   with ``p^|k|`` run in the log domain, so long empty stretches cannot underflow. The lattice
   is the integers from 0 to ``32·scale``, or every ``s``-th of them with the smallest ``s``
   that keeps it within :data:`LATTICE_POINTS` points (only for noise of a scale above 128).
   A released value at or below 0 says the same about a count as 0 does (its likelihood is
   ``p^u`` times a constant for every count ``u >= 0``), so it is read as 0.
3. **The posterior median** of every cell's count given its value and its group's prior (an
   integer; every value is read from one table per group).
4. **Large counts keep their value.** A released value above ``16·scale``
   (:data:`OWN_VALUE_ABOVE`) is its own estimate, and values above twice that are left out of
   the fit. The fitted prior is discrete (a few atoms), and where counts are many noise scales
   from zero and spread out, its atoms are farther apart than the noise: the posterior median
   would snap to them (docs/cells.md measures it on dense maps).

It is monotone in the released value within a group, zero where a value is indistinguishable
from the noise of empty cells, and close to the released value where counts are large.
Maps with fewer than :data:`MIN_CELLS` released cells are too small to fit a prior;
:func:`empirical_bayes` gives them the total-preserving non-negative projection instead.

Privacy: post-processing. Everything here reads the released values, the release's public
noise distribution and scale, and the public grid; never the sites.
"""

from __future__ import annotations

import numbers
from typing import TYPE_CHECKING

import numpy as np
from scipy import ndimage

from dpatlas.core.validation import check_positive_int
from dpatlas.spatial.products._npmle import median_table, prior

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["empirical_bayes", "neighbour_means", "posterior_medians"]

GROUPS = 4
"""Default number of neighbourhood groups of :func:`posterior_medians` (docs/cells.md)."""
WINDOW = 5
"""Default side, in cells, of the neighbourhood box that ranks cells into groups."""
CELLS_PER_GROUP = 1024
"""Fewest cells per group: a map of ``n`` cells gets ``min(groups, n // 1024)`` groups (≥ 1)."""
MIN_CELLS = 256
"""Fewest released cells for which :func:`empirical_bayes` fits a prior."""
OWN_VALUE_ABOVE = 16.0
"""Released values above ``16·scale`` are their own estimate; above ``32·scale`` they are also
left out of the prior's fit."""
LATTICE_POINTS = 4096
"""Most points of the lattice of counts one prior is fitted on."""


def neighbour_means(values: np.ndarray, released: np.ndarray, window: int) -> np.ndarray:
    """Mean value of each released cell's released neighbours in a ``window`` box (itself out).

    ``values`` holds one value per released cell (row-major over ``released``, a 2-D boolean
    array); cells without a released neighbour get the mean of all values.

    Examples
    --------
    >>> released = np.ones((1, 4), dtype=bool)
    >>> neighbour_means(np.array([4.0, 0.0, 2.0, 6.0]), released, 3).tolist()
    [0.0, 3.0, 3.0, 2.0]
    """
    full = np.zeros(released.shape)
    full[released] = values
    inside = released.astype(np.float64)
    area = window * window
    sums = ndimage.uniform_filter(full, size=window, mode="constant") * area - full
    cells = ndimage.uniform_filter(inside, size=window, mode="constant") * area - inside
    cells = np.rint(cells)[released]
    with np.errstate(invalid="ignore", divide="ignore"):
        means = sums[released] / cells
    return np.where(cells > 0, means, float(np.mean(values)) if values.size else 0.0)


def _check_groups(groups: int, window: int) -> tuple[int, int]:
    """``groups`` and ``window`` as ints, or the error naming the bad one."""
    groups = check_positive_int(groups, "groups")
    window = check_positive_int(window, "window")
    if window % 2 == 0:
        raise ValueError(
            f"window must be odd (a box centred on the cell), got {window}; e.g. {window + 1}"
        )
    return groups, window


def posterior_medians(
    values: np.ndarray,
    scale: float,
    released: np.ndarray,
    *,
    groups: int = GROUPS,
    window: int = WINDOW,
) -> np.ndarray:
    """Posterior median count of every released cell (see the module docstring).

    Parameters
    ----------
    values : numpy.ndarray
        Integer released values, one per released cell (row-major over ``released``).
    scale : float
        The public scale of their discrete Laplace noise (``P(Z = k) ∝ exp(-|k|/scale)``).
    released : numpy.ndarray
        ``ny × nx`` booleans, True for released cells.
    groups : int
        Neighbourhood groups (at most ``len(values) // CELLS_PER_GROUP``, at least 1).
    window : int
        Odd side of the neighbourhood box, in cells.

    Returns
    -------
    numpy.ndarray
        int64 estimates ``>= 0``, one per released cell.

    Examples
    --------
    >>> gen = np.random.default_rng(0)
    >>> counts = np.where(np.arange(400) < 40, 30, 0)
    >>> noise = gen.geometric(1 - np.exp(-1), 400) - gen.geometric(1 - np.exp(-1), 400)
    >>> est = posterior_medians(counts + noise, 1.0, np.ones((20, 20), dtype=bool))
    >>> int(np.abs(est - counts).sum()) < int(np.abs(counts + noise - counts).sum()) // 2
    True
    """
    y = np.asarray(values)
    if y.ndim != 1 or y.size != int(np.count_nonzero(released)):
        raise ValueError(
            f"values must hold one value per released cell ({int(np.count_nonzero(released))}), "
            f"got shape {y.shape}"
        )
    if y.size and not np.array_equal(y, np.rint(y)):
        raise ValueError("values must be integers (the raw counts of a discrete Laplace release)")
    real = isinstance(scale, numbers.Real) and not isinstance(scale, (bool, np.bool_))
    if not (real and 0 < scale < np.inf):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    groups, window = _check_groups(groups, window)
    y = y.astype(np.int64)
    out = y.copy()
    if y.size == 0:
        return out
    n_groups = max(1, min(groups, y.size // CELLS_PER_GROUP))
    group = np.zeros(y.size, dtype=np.int64)
    if n_groups > 1:
        means = neighbour_means(y.astype(np.float64), np.asarray(released, dtype=bool), window)
        ranks = np.arange(1, n_groups) * y.size // n_groups
        edges = np.partition(means, ranks)[ranks]
        group = np.searchsorted(edges, means, side="right")
    top = 2 * OWN_VALUE_ABOVE * float(scale)
    spacing = max(1, int(np.ceil(top / LATTICE_POINTS)))
    # A value y <= 0 lies below every count u >= 0: its likelihood p^(u - y) is p^u times a
    # constant, so it says the same as y = 0 about the count (same prior fit, same posterior).
    point = (np.maximum(y, 0) + spacing // 2) // spacing  # nearest lattice point
    fitted = y <= top
    log_p = -spacing / float(scale)
    for k in range(n_groups):
        members = np.flatnonzero((group == k) & fitted)
        if members.size == 0:
            continue
        hist = np.bincount(point[members], minlength=2)
        weights = prior(hist.astype(np.float64), log_p)
        out[members] = spacing * median_table(weights, log_p)[point[members]]
    return np.where(y > OWN_VALUE_ABOVE * scale, y, out)


def empirical_bayes(heatmap: Heatmap, *, groups: int = GROUPS, window: int = WINDOW) -> Heatmap:
    """The per-cell estimate of a uniform-grid map: posterior medians (:func:`posterior_medians`).

    Reads the raw released counts (not the current estimate), their public discrete Laplace
    scale and the grid; ``steps`` records ``"empirical_bayes"``. Maps with fewer than
    :data:`MIN_CELLS` released cells get the total-preserving non-negative integers of
    :func:`~dpatlas.spatial.products.postprocess.nonnegative` instead (step ``"nonnegative(integer)"``,
    without its flag); ``groups`` and ``window`` are checked there too. Applied to a map whose
    estimate it made already (its step last), it returns the map unchanged, with no step added.
    :func:`~dpatlas.spatial.heatmap`
    applies it to one-level releases made for ``target="cells"`` (the default). The estimate
    answers "how many sites in this cell"; for sums over a region use
    :meth:`~dpatlas.spatial.Heatmap.query`, which adds up the raw counts (unbiased, with an
    interval), since a sum of medians is not the median of a sum.

    Examples
    --------
    >>> import dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 40_000, 40_000), cell_size=1_000, crs="EPSG:3035")
    >>> gen = np.random.default_rng(1)
    >>> xy = (gen.normal(10_000, 2_000, 3_000), gen.normal(30_000, 2_000, 3_000))
    >>> hm = sp.heatmap(xy, g, epsilon=0.5, method="uniform", target="regions", crs="EPSG:3035",
    ...                 rng=2)
    >>> eb = empirical_bayes(hm)
    >>> eb.steps, bool((eb.estimate >= 0).all()), bool((eb.release.value == hm.release.value).all())
    (('empirical_bayes',), True, True)
    """
    from dpatlas.spatial.products.postprocess import nonnegative

    release = heatmap.release
    if heatmap.hierarchy is not None:
        raise ValueError(
            "empirical_bayes needs a one-level release (method='uniform'); a tree release is "
            "post-processed by consistent()"
        )
    if release.noise != "discrete_laplace" or release.scale is None:
        raise ValueError(
            f"empirical_bayes needs discrete Laplace noise of a public scale, got noise "
            f"{release.noise!r} with scale {release.scale!r}"
        )
    groups, window = _check_groups(groups, window)
    if heatmap.grid.n_released < MIN_CELLS:
        small = nonnegative(heatmap.replace(estimate=None))
        estimate = small.estimate
        added = small.steps[len(heatmap.steps) :]  # none when the raw counts are already >= 0
    else:
        estimate = posterior_medians(
            np.asarray(release.value),
            float(release.scale),
            heatmap.grid.released,
            groups=groups,
            window=window,
        )
        added = ("empirical_bayes",)
    made_here = heatmap.steps[len(heatmap.steps) - len(added) :] == added
    if made_here and np.array_equal(estimate, heatmap.estimate):
        return heatmap
    return heatmap.replace(estimate=estimate, steps=(*heatmap.steps, *added))
