"""Graphs in: edge lists, networkx graphs and sparse matrices become one checked ``EdgeGraph``."""
