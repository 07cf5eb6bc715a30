"""Where a graph's exact statistics are computed: in memory, or on a backend that plugs in.

A backend (``dpatlas.dask``: ``pip install "dpatlas[dask]"``) registers in
:data:`TRIANGLE_STATS` a function ``compute(graph, *, n, client, checked=None)`` returning the
:class:`~dpatlas.graph.exact.counting.CommonNeighbourStats` of the graph; it calls
``checked()`` once the input passed its checks and before any refusal that depends on the data
(a work guard), so that a release debits its budget there (issue #17);
:func:`~dpatlas.graph.triangles.triangle_count` and :func:`~dpatlas.graph.report.sensitivity_report`
ask for it by ``backend=`` and keep the budget and the noise on the driver. A backend is found
through its entry point (group ``dpatlas.backends``) on first use, so ``backend="dask"`` needs
no ``import dpatlas.dask``.

Privacy: a backend returns the same exact (NOT private) statistics as memory; the releases
draw their noise from them here, so the backend changes where the exact values are computed,
never the release.
"""

from __future__ import annotations

from collections.abc import Callable

from dpatlas._backends import Backends
from dpatlas.graph.exact.counting import CommonNeighbourStats

__all__ = ["TRIANGLE_STATS"]

TRIANGLE_STATS: Backends[Callable[..., CommonNeighbourStats]] = Backends("triangle statistics")
"""The backends that compute exact triangle statistics (``TRIANGLE_STATS.on(backend)``)."""
