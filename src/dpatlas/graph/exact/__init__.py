"""Exact graph statistics and sensitivities: the inputs of the mechanisms, NOT private.

Nothing here draws noise; never publish these values (the releases in :mod:`dpatlas.graph` do).
"""
