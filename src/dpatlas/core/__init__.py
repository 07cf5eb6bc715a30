"""The shared privacy core: mechanisms, budgets, releases and randomness.

Domain adapters (:mod:`dpatlas.graph`, :mod:`dpatlas.spatial`) compute exact answers and
sensitivities; only this package draws noise and debits budgets.
"""

from dpatlas.core.budget import Budget, BudgetAmount, Spend
from dpatlas.core.discrete_laplace import discrete_laplace
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source

__all__ = [
    "Budget",
    "BudgetAmount",
    "RandomSource",
    "Release",
    "RngLike",
    "Spend",
    "discrete_laplace",
    "get_source",
]
