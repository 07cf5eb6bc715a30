"""The neighbour relation of edge-level differential privacy on graphs."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["EdgeAdjacency"]


@dataclass(frozen=True)
class EdgeAdjacency:
    """Edge adjacency: two graphs are neighbours when they differ in exactly one edge.

    ``G`` and ``G'`` have the *same node set*, which is public (it is part of the query, not of
    the data: give it as ``n=``, ``nodes=``, a networkx graph's nodes or a matrix's shape), and
    ``G'`` is ``G`` with one edge added or removed. Edge-DP protects the presence of each single
    relationship, not of a person (node-DP would protect all edges of a node at once).

    Under this relation a triangle count changes by at most ``n - 2`` (flipping the edge
    ``{i, j}`` creates or destroys one triangle per common neighbour of ``i`` and ``j``), which
    is :meth:`triangle_global_sensitivity`.

    Examples
    --------
    >>> EdgeAdjacency()
    EdgeAdjacency()
    >>> EdgeAdjacency().triangle_global_sensitivity(10)
    8
    """

    def triangle_global_sensitivity(self, n: int) -> int:
        """Largest change of the triangle count between neighbours on ``n`` nodes: ``max(n-2, 0)``.

        Proof: flipping ``{i, j}`` changes the count by the number of common neighbours of ``i``
        and ``j``, at most ``n - 2``; ``K_n`` minus one edge attains it.
        """
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
            raise TypeError(f"n must be an integer (number of nodes), got {n!r}")
        if n < 0:
            raise ValueError(f"n must be >= 0 (number of nodes), got {n}")
        return max(int(n) - 2, 0)
