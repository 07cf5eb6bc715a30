"""Mechanisms calibrated to a graph's local sensitivity, and their exact laws.

The sensitivity ladder (``ladder``: Zhang et al. 2015) and the piecewise-Laplace ladder
(``piecewise_ladder``, pure ε-DP, the graph default), their exact output distributions and
interval noise families (``ladder_exact``, ``ladder_dominance``, ``piecewise_exact``), and
smooth sensitivity (``smooth``, ``smooth_family``). Each takes its ladder of local
sensitivities at distance 0, 1, 2, ... from the graph adapters; none reads a graph.
"""
