"""Post-processing of released heatmaps: reads noisy counts only, so it costs no privacy.

Plain clamping of negative counts to 0 inflates the total (the more, the smaller N·ε;
docs/dpbench.md, "Figures behind the defaults") and with it every region sum. :func:`nonnegative` instead projects the
noisy counts onto the non-negative vectors with the *same total*.
"""

from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, cast

import numpy as np

from dpatlas.core.validation import float_or_inf
from dpatlas.spatial.tree.estimates import EMPTY_Z, drop_empty, empty_regions, to_cells
from dpatlas.spatial.tree.estimates import nonnegative as tree_nonnegative
from dpatlas.spatial.tree.hierarchy import least_squares
from dpatlas.spatial.tree.smoothing import pycnophylactic

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["consistent", "nonnegative", "project_simplex", "round_preserving_total", "suppress"]


def project_simplex(values: np.ndarray, total: float) -> np.ndarray:
    """Least-squares projection of ``values`` onto ``{x >= 0, sum(x) = total}``.

    The projection is ``x_i = max(v_i - τ, 0)`` with the one ``τ`` that gives the total
    (Held–Wolfe–Crowder 1974; Duchi et al. 2008), found by sorting. A negative ``total`` has no
    non-negative vector; the closest feasible point, all zeros, is returned.

    Examples
    --------
    >>> project_simplex(np.array([3.0, -1.0, 2.0]), 4.0)
    array([2.5, 0. , 1.5])
    """
    v = np.asarray(values, dtype=np.float64)
    if total <= 0 or v.size == 0:
        return np.zeros_like(v)
    ordered = np.sort(v)[::-1]
    cumulative = np.cumsum(ordered) - total
    positions = np.arange(1, v.size + 1)
    rho = np.flatnonzero(ordered - cumulative / positions > 0)[-1]
    tau = cumulative[rho] / (rho + 1)
    return np.maximum(v - tau, 0.0)


def round_preserving_total(values: np.ndarray, total: int) -> np.ndarray:
    """Integers ``>= 0`` summing to ``total``: floors, plus one for the largest remainders.

    ``values`` must be non-negative with ``sum(values) == total`` (up to rounding). Ties go to
    the lower index, so the result is deterministic.

    Examples
    --------
    >>> round_preserving_total(np.array([2.5, 0.0, 1.5]), 4)
    array([3, 0, 1])
    """
    floors = np.floor(values).astype(np.int64)
    short = int(total) - int(floors.sum())
    if short > 0:
        remainders = values - floors
        order = np.argsort(-remainders, kind="stable")
        floors[order[:short]] += 1
    return floors


def nonnegative(heatmap: Heatmap, *, integer: bool = True) -> Heatmap:
    """Non-negative counts with the same total as the current estimate.

    The current estimate is projected onto ``{x >= 0, Σx = T}`` by least squares
    (:func:`project_simplex`), ``T`` its total (0 if negative); with ``integer=True`` the result
    is rounded to integers that still sum to ``T`` (rounded to an integer), by largest
    remainders. Uses the released counts only. Flag ``"adjusted"`` marks changed cells. An
    estimate already in that set (non-negative, and integer for ``integer=True``: a posterior
    median map, or a map made non-negative before) is returned unchanged, with no step added.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5, 2.5]), np.array([0.5, 0.5])), g, epsilon=1.0,
    ...                 crs="EPSG:3035", rng=4)
    >>> nn = hm.nonnegative()
    >>> bool((nn.estimate >= 0).all()), int(nn.estimate.sum()) == max(int(hm.estimate.sum()), 0)
    (True, True)
    >>> nn.nonnegative() is nn
    True
    """
    current = np.asarray(heatmap.estimate, dtype=np.float64)
    kept = np.issubdtype(np.asarray(heatmap.estimate).dtype, np.integer) or not integer
    if kept and (current >= 0).all():
        return heatmap  # the projection of a point of the set is the point itself
    total = float(current.sum())
    if integer:
        total = float(max(math.floor(total + 0.5), 0))
    projected = project_simplex(current, total)
    if integer:
        projected = round_preserving_total(projected, int(total))
    flags = {**heatmap.flags, "adjusted": projected != current}
    steps = (*heatmap.steps, "nonnegative(integer)" if integer else "nonnegative")
    return heatmap.replace(estimate=projected, flags=flags, steps=steps)


def consistent(
    heatmap: Heatmap,
    *,
    smooth: bool = True,
    nonnegative: bool = True,
    empty_z: float | None = EMPTY_Z,
) -> Heatmap:
    """Cell estimate of a multi-level release: least squares, non-negative, spread over cells.

    The tree's noisy counts are combined by weighted least squares (every parent equals the
    sum of its children; :func:`~dpatlas.spatial.tree.hierarchy.least_squares`), made
    non-negative top-down with every node total kept when it can be
    (:func:`~dpatlas.spatial.tree.estimates.nonnegative`); large regions whose own release is
    within ``empty_z`` noise standard deviations of zero are set to 0 and their mass goes back
    to the rest of the map in proportion, so the total is kept
    (:func:`~dpatlas.spatial.tree.estimates.empty_regions`,
    :func:`~dpatlas.spatial.tree.estimates.drop_empty`; ``empty_z=None`` skips it; what it
    gains and costs is measured in the ablation of docs/dpbench.md); and each leaf's count is
    spread over its released cells: smoothly
    across leaf edges with every leaf total kept
    (:func:`~dpatlas.spatial.tree.smoothing.pycnophylactic`, the default) or evenly
    (``smooth=False``). ``nonnegative=False`` keeps the plain least-squares counts (unbiased,
    possibly negative; spread evenly), as in the papers' constrained inference. Reads the
    release only. :func:`~dpatlas.spatial.heatmap` applies the defaults to every multi-level
    release; a one-level release is returned unchanged.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 32, 32), cell_size=1, crs="EPSG:3035")
    >>> xy = (np.full(400, 3.5), np.full(400, 30.5))
    >>> hm = sp.heatmap(xy, g, epsilon=1.0, method="privtree", crs="EPSG:3035", rng=2)
    >>> hm.steps, bool((hm.estimate >= 0).all())
    (('least_squares', 'nonnegative', 'empty_regions(z=1.5)', 'pycnophylactic'), True)
    >>> even = consistent(hm.replace(estimate=None, steps=()), smooth=False, empty_z=None)
    >>> even.steps, round(float(even.estimate.sum()), 6) == round(float(hm.estimate.sum()), 6)
    (('least_squares', 'nonnegative', 'spread_evenly'), True)
    """
    h = heatmap.hierarchy
    if h is None:
        return heatmap
    values = least_squares(h)
    if not nonnegative:
        cells = to_cells(h, values, heatmap.grid)
        return heatmap.replace(estimate=cells, steps=(*heatmap.steps, "least_squares"))
    values = tree_nonnegative(h, values)
    steps = [*heatmap.steps, "least_squares", "nonnegative"]
    if empty_z is not None:
        values = drop_empty(h, values, empty_regions(h, z=empty_z))
        steps.append(f"empty_regions(z={empty_z:g})")
    if smooth:
        cells, spread = pycnophylactic(h, values, heatmap.grid), "pycnophylactic"
    else:
        cells, spread = to_cells(h, values, heatmap.grid), "spread_evenly"
    return heatmap.replace(estimate=cells, steps=(*steps, spread))


def suppress(heatmap: Heatmap, threshold: float) -> Heatmap:
    """Flag ``"suppressed"`` the cells whose current (noisy) estimate is below ``threshold``.

    Decided on released values only, never on exact counts, so the flags are private too. The
    estimate is kept; exports carry the flag (a GeoTIFF band, a GeoDataFrame column).

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs="EPSG:3035", rng=1)
    >>> flagged = hm.suppress(5)
    >>> bool((flagged.flags["suppressed"] == (hm.estimate < 5)).all())
    True
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)):
        raise TypeError(f"threshold must be a number, got {threshold!r}")
    if not math.isfinite(float_or_inf(cast(numbers.Real, threshold))):
        shown = (
            "an integer beyond the float range" if isinstance(threshold, int) else repr(threshold)
        )
        raise ValueError(f"threshold must be finite, got {shown}; e.g. 5 flags estimates below 5")
    flags = {**heatmap.flags, "suppressed": np.asarray(heatmap.estimate) < threshold}
    return heatmap.replace(flags=flags, steps=(*heatmap.steps, f"suppress(<{threshold:g})"))
