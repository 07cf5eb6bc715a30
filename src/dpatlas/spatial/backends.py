"""Where a map's exact cell counts are computed: in memory, or on a backend that plugs in.

A backend (``dpatlas.dask``: ``pip install "dpatlas[dask]"``) registers in :data:`SITE_COUNTS`
a function ``compute(sites, grid, adjacency, source, *, crs, individual_column, client)``
returning the :class:`~dpatlas.spatial.methods.SiteCounts` of the released cells;
:func:`~dpatlas.spatial.heatmap.heatmap` asks for it by ``backend=`` and keeps the budget and
the noise on the driver. A backend is found through its entry point (group
``dpatlas.backends``) on first use, so ``backend="dask"`` needs no ``import dpatlas.dask``.

Privacy: a backend returns the same exact, contribution-bounded counts as memory (the same
sites kept, by the same random keys of ``source``); the release methods draw their noise from
them here, so the backend changes where the counts are computed, never the release.
"""

from __future__ import annotations

from collections.abc import Callable

from dpatlas._backends import Backends
from dpatlas.spatial.methods import SiteCounts

__all__ = ["SITE_COUNTS"]

SITE_COUNTS: Backends[Callable[..., SiteCounts]] = Backends("site counts")
"""The backends that compute exact site counts (``SITE_COUNTS.on(backend)``)."""
