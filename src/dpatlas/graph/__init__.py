"""Edge-DP analytics of graphs: private triangle counts and the graph adapter they rest on.

Two graphs are neighbours when they share the (public) node set and differ in one edge
(:class:`EdgeAdjacency`). Read data with :func:`read_edgelist` or :func:`as_edge_graph`;
release with :func:`triangle_count`; inspect (NOT private) with :func:`sensitivity_report`.
"""

from dpatlas.graph.adjacency import EdgeAdjacency
from dpatlas.graph.edgegraph import EdgeGraph, as_edge_graph
from dpatlas.graph.io import read_edgelist
from dpatlas.graph.report import SensitivityReport, sensitivity_report
from dpatlas.graph.triangles import TriangleRelease, triangle_count

__all__ = [
    "EdgeAdjacency",
    "EdgeGraph",
    "SensitivityReport",
    "TriangleRelease",
    "as_edge_graph",
    "read_edgelist",
    "sensitivity_report",
    "triangle_count",
]
