"""dpatlas: differentially private analytics of graphs and maps."""

__version__ = "0.1.0"
