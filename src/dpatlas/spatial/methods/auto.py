"""``method="auto"``: pick the release method from the question and public inputs only.

The question is :func:`~dpatlas.spatial.heatmap`'s ``target``. For ``"cells"`` (the default:
a map is read cell by cell, and hotspots are cells) the method is always ``"uniform"``: every
cell is measured with all of ε, and :func:`~dpatlas.spatial.products.denoise.empirical_bayes`
turns the released counts into per-cell posterior medians, for free; a tree's leaf counts,
spread over their cells, lose the cells' differences where counts are high (the measurements
are in docs/cells.md). For ``"regions"`` (counts in rectangles and
polygons) the rule comes from the DPBench measurements in ``docs/dpbench.md``: PrivTree (with the
smoothed, consistent post-processing) beats the uniform grid and the adaptive grid on every
256×256 DPBench setting (N = 10⁴ and 10⁶, ε = 0.1 and 1), while on very coarse grids the
uniform grid wins because every cell gets all of ε and there is nothing to adapt to:

* ``"uniform"`` when the grid has at most 16 released cells, or when the user gives a public
  number of sites ``n_sites`` and ``n_sites·ε / cells >= 50`` (dense cells: per-cell noise is
  small next to the counts, so splitting ε between a tree and its counts does not pay);
* ``"privtree"`` otherwise, with a third of ε for the tree and two thirds for the leaf counts,
  and the split threshold ``θ = -1.5δ`` (:data:`PRIVTREE_OPTIONS`; ``method="privtree"``
  alone keeps the paper's ε/2 + ε/2 and ``θ = -δ``). Leaf noise is a large part of
  PrivTree's error, and a tree bought with ε/3 is still fine enough; the lower threshold
  splits half a level deeper at the same cost, and the empty-region step of
  :func:`~dpatlas.spatial.products.postprocess.consistent` keeps the extra empty leaves cheap.
  The measurements behind both constants are in docs/dpbench.md ("Figures behind the
  defaults").

Privacy: the choice and the options read only public inputs (the target, the grid, ε, a public
``n_sites``; the split and the threshold are constants, θ a public multiple of the public
bias δ), so the release is exactly the chosen method's release with those options and costs
what it costs (ε, debited once). A user
without a public N can buy one with :func:`~dpatlas.spatial.resolution.estimate_n_sites`
(sequential composition) and pass its noisy value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods import (
    METHODS,
    SiteCounts,
    check_n_sites,
    open_release,
    register_check,
    register_method,
)

__all__ = ["PRIVTREE_OPTIONS", "TARGETS", "auto", "check_auto", "check_target", "choose_method"]

TARGETS = ("cells", "regions")
"""The questions a map can be built for: counts of single cells, or of regions."""

MAX_UNIFORM_CELLS = 16
DENSE_SITES_EPSILON_PER_CELL = 50.0
PRIVTREE_OPTIONS: Mapping[str, Any] = MappingProxyType(
    {"tree_fraction": 1 / 3, "theta_levels": 1.5}
)
"""Options ``"auto"`` gives PrivTree (read-only): ε/3 for the tree, 2ε/3 for the leaf counts,
split threshold ``θ = -1.5δ``."""


def check_target(target: Any) -> str:
    """``target`` if it is one of :data:`TARGETS`, else a ValueError naming the choices.

    Examples
    --------
    >>> check_target("regions")
    'regions'
    >>> check_target("cell")
    Traceback (most recent call last):
    ...
    ValueError: target must be "cells" (per-cell counts and hotspots) or "regions" ... got 'cell'
    """
    if not isinstance(target, str) or target not in TARGETS:
        raise ValueError(
            'target must be "cells" (per-cell counts and hotspots) or "regions" (counts in '
            f"rectangles and polygons), got {target!r}"
        )
    return target


def choose_method(
    grid: Grid, epsilon: float, n_sites: float | None = None, target: str = "cells"
) -> str:
    """The method ``"auto"`` uses for this target, public grid, ε and (optional) public N.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 256, 256), cell_size=1, crs="EPSG:3035")
    >>> choose_method(g, 1.0)
    'uniform'
    >>> choose_method(g, 1.0, target="regions"), choose_method(g, 1.0, 10**7, target="regions")
    ('privtree', 'uniform')
    >>> small = Grid.from_bounds((0, 0, 4, 4), cell_size=1, crs="EPSG:3035")
    >>> choose_method(small, 0.1, target="regions")
    'uniform'
    """
    if check_target(target) == "cells":
        return "uniform"
    cells = grid.n_released
    if cells <= MAX_UNIFORM_CELLS:
        return "uniform"
    if n_sites is not None and n_sites * epsilon / cells >= DENSE_SITES_EPSILON_PER_CELL:
        return "uniform"
    return "privtree"


@register_check("auto")
def check_auto(
    grid: Grid, *, epsilon: float, sensitivity: int, n_sites: float | None, target: str
) -> Charge:
    """The chosen method's public check, with the options :func:`auto` gives it.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")
    >>> check_auto(g, epsilon=1.0, sensitivity=1, n_sites=None, target="regions").mechanism
    'heatmap/privtree'
    """
    choice = choose_method(grid, epsilon, check_n_sites(n_sites), target)
    options = PRIVTREE_OPTIONS if choice == "privtree" else {}
    return open_release(choice, grid, epsilon=epsilon, sensitivity=sensitivity, options=options)


@register_method("auto")
def auto(
    data: SiteCounts,
    grid: Grid,
    *,
    epsilon: float,
    source: RandomSource,
    budget: Budget | None,
    n_sites: float | None = None,
    target: str = "cells",
) -> Release:
    """Release with :func:`choose_method`'s method; ``metadata["auto_choice"]`` records it.

    ``target`` is :func:`~dpatlas.spatial.heatmap`'s (not a method option); the release's
    ``metadata["target"]`` records it.

    PrivTree is run with :data:`PRIVTREE_OPTIONS` (ε/3 for the tree); the release's
    ``metadata["epsilon_tree"]`` and ``metadata["epsilon_leaves"]`` record the split.

    ``n_sites`` is a public number of sites (or a noisy one bought separately); it is never
    taken from ``data``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpatlas.core.rng import get_source
    >>> g = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")
    >>> data = SiteCounts(np.ones(4096, dtype=np.int64), np.empty(0), np.empty(0), 1)
    >>> rel = auto(data, g, epsilon=1.0, source=get_source(0), budget=None, target="regions")
    >>> rel.mechanism, rel.metadata["auto_choice"], rel.metadata["target"]
    ('heatmap/privtree', 'privtree', 'regions')
    >>> round(rel.metadata["epsilon_tree"], 4), round(rel.metadata["epsilon_leaves"], 4)
    (0.3333, 0.6667)
    """
    n_sites = check_n_sites(n_sites)
    choice = choose_method(grid, epsilon, n_sites, target)
    options = PRIVTREE_OPTIONS if choice == "privtree" else {}
    release = METHODS[choice](data, grid, epsilon=epsilon, source=source, budget=budget, **options)
    metadata = {**release.metadata, "auto_choice": choice, "target": target}
    return dataclasses.replace(release, metadata=metadata)
