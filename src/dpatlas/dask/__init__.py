"""Scale out on Dask: the same exact aggregates as in memory, privacy accounting on the driver.

Install with ``pip install "dpatlas[dask]"``. Workers compute exact counts from data they read
themselves (Parquet); the driver debits the budget and draws every noise sample with the core's
sampler, exactly as in memory. Use ``backend="dask"`` in :func:`dpatlas.spatial.heatmap` and
:func:`dpatlas.graph.triangle_count` (found through the entry point ``dpatlas.backends``,
which calls :func:`register`), or the exact (NOT private) functions here:

* :func:`heatmap_counts` / :func:`site_counts`: cell counts of points (dense grids, tree-summed);
* :func:`triangle_stats`: the :class:`~dpatlas.graph.exact.counting.CommonNeighbourStats` of an edge
  list, from 2-D blocks of sparse products.
"""

from dpatlas.dask._cluster import get_client
from dpatlas.dask.graph import DEFAULT_MAX_WEDGES, triangle_stats
from dpatlas.dask.spatial import heatmap_counts, site_counts
from dpatlas.graph.backends import TRIANGLE_STATS
from dpatlas.spatial.backends import SITE_COUNTS

__all__ = [
    "DEFAULT_MAX_WEDGES",
    "get_client",
    "heatmap_counts",
    "register",
    "site_counts",
    "triangle_stats",
]


def register() -> None:
    """Plug Dask into the adapters as ``backend="dask"`` (entry point ``dpatlas.backends``).

    Runs on ``import dpatlas.dask``; the adapters load it on the first ``backend="dask"``.

    Examples
    --------
    >>> from dpatlas.graph.backends import TRIANGLE_STATS
    >>> register()
    >>> TRIANGLE_STATS.on("dask") is triangle_stats
    True
    """
    TRIANGLE_STATS.register("dask", triangle_stats)
    SITE_COUNTS.register("dask", site_counts)


register()
