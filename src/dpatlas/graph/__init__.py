"""Edge-DP analytics of graphs: private triangle counts and the graph adapter they rest on.

Two graphs are neighbours when they share the (public) node set and differ in one edge
(:class:`EdgeAdjacency`). Read data with :func:`read_edgelist` or :func:`as_edge_graph`;
release with :func:`triangle_count`, or a whole synthetic graph with :func:`synthesize`;
inspect (NOT private) with :func:`sensitivity_report`.
"""

from dpatlas.graph.adjacency import EdgeAdjacency
from dpatlas.graph.clustering import ClusteringRelease, clustering_coefficient
from dpatlas.graph.degrees import DegreeHistogramRelease, degree_histogram
from dpatlas.graph.edges import edge_count
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph
from dpatlas.graph.input.io import read_edgelist
from dpatlas.graph.kstars import KStarRelease, kstar_count
from dpatlas.graph.report import SensitivityReport, sensitivity_report
from dpatlas.graph.synthesis import SyntheticGraph, synthesize
from dpatlas.graph.triangles import TriangleRelease, triangle_count

__all__ = [
    "ClusteringRelease",
    "DegreeHistogramRelease",
    "EdgeAdjacency",
    "EdgeGraph",
    "KStarRelease",
    "SensitivityReport",
    "SyntheticGraph",
    "TriangleRelease",
    "as_edge_graph",
    "clustering_coefficient",
    "degree_histogram",
    "edge_count",
    "kstar_count",
    "read_edgelist",
    "sensitivity_report",
    "synthesize",
    "triangle_count",
]
