"""Private gridded heatmaps of sensitive sites (each site one individual, or ``k`` per individual).

A public grid (extent, cell size, projected CRS, chosen by the user) is laid over a public study
area; :func:`heatmap` releases the counts of its cells for a cost of ε for the whole map. The
``"uniform"`` method adds discrete Laplace noise at ``k/ε`` to every cell (parallel
composition); ``"privtree"`` and ``"adaptive"`` release counts of data-dependent blocks of cells,
far more accurate for counts in regions when sites are few per cell (docs/dpbench.md);
``"auto"`` (the default) picks one from public inputs for the question, ``target="cells"``
(the default: per-cell counts and hotspots; the uniform grid read through per-cell posterior
medians, :func:`empirical_bayes`) or ``target="regions"`` (docs/cells.md). The :class:`Heatmap`
result keeps the raw noisy counts and offers post-processing (non-negative totals-preserving
counts, least squares over a tree, suppression flags, region queries) and exports
(GeoDataFrame, GeoPackage, GeoJSON, GeoTIFF, PNG, matplotlib, and a self-contained interactive
HTML map); :func:`read_heatmap` reads a saved GeoPackage back.

Examples
--------
>>> import numpy as np
>>> import dpatlas.spatial as sp
>>> grid = sp.Grid.from_bounds((0, 0, 20_000, 20_000), cell_size=1_000, crs="EPSG:3035")
>>> rng = np.random.default_rng(0)
>>> xy = (rng.uniform(0, 20_000, 2_000), rng.uniform(0, 20_000, 2_000))
>>> hm = sp.heatmap(xy, grid, epsilon=0.5, crs="EPSG:3035", rng=1)
>>> hm.counts.shape, hm.release.mechanism, hm.steps
((20, 20), 'heatmap/uniform', ('empirical_bayes',))
>>> sp.heatmap(xy, grid, epsilon=0.5, target="regions", crs="EPSG:3035", rng=1).release.mechanism
'heatmap/privtree'
>>> sp.heatmap(xy, grid, epsilon=0.5, method="uniform", crs="EPSG:3035", rng=1).release.scale
2.0
"""

from dpatlas.spatial.adjacency import SiteAdjacency
from dpatlas.spatial.binning import bin_points, cell_of
from dpatlas.spatial.grid import DEFAULT_MAX_CELLS, Grid
from dpatlas.spatial.heatmap import heatmap
from dpatlas.spatial.io import read_csv_points, read_gbif, read_sites
from dpatlas.spatial.methods import METHODS, SiteCounts, adaptive, auto, privtree, register_method  # noqa: F401  (register the methods)
from dpatlas.spatial.products.denoise import empirical_bayes
from dpatlas.spatial.products.postprocess import consistent, nonnegative, suppress
from dpatlas.spatial.products.query import RegionEstimate, region_query
from dpatlas.spatial.products.record import read_heatmap
from dpatlas.spatial.products.result import Heatmap
from dpatlas.spatial.resolution import estimate_n_sites, suggest_cell_size
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = [
    "DEFAULT_MAX_CELLS",
    "METHODS",
    "Grid",
    "Heatmap",
    "Hierarchy",
    "RegionEstimate",
    "SiteAdjacency",
    "SiteCounts",
    "bin_points",
    "cell_of",
    "consistent",
    "empirical_bayes",
    "estimate_n_sites",
    "heatmap",
    "nonnegative",
    "read_csv_points",
    "read_gbif",
    "read_heatmap",
    "read_sites",
    "region_query",
    "register_method",
    "suggest_cell_size",
    "suppress",
]
