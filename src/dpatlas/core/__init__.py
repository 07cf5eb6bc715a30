"""The shared privacy core: mechanisms, budgets, releases and randomness.

Domain adapters (:mod:`dpatlas.graph`, :mod:`dpatlas.spatial`) compute exact answers and
sensitivities; only this package draws noise and debits budgets.
"""

from dpatlas.core.budget import Budget, BudgetAmount, Spend
from dpatlas.core.clipped import clipped_mean, clipped_sum
from dpatlas.core.composition import (
    advanced_composition,
    group_privacy,
    pure_to_zcdp,
    zcdp_to_approx_dp,
)
from dpatlas.core.discrete_laplace import discrete_laplace
from dpatlas.core.exponential import exponential, report_noisy_max
from dpatlas.core.gaussian import gaussian
from dpatlas.core.laplace import laplace
from dpatlas.core.randomized_response import estimate_frequencies, randomized_response
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source

__all__ = [
    "Budget",
    "BudgetAmount",
    "RandomSource",
    "Release",
    "RngLike",
    "Spend",
    "advanced_composition",
    "clipped_mean",
    "clipped_sum",
    "discrete_laplace",
    "estimate_frequencies",
    "exponential",
    "gaussian",
    "get_source",
    "group_privacy",
    "laplace",
    "pure_to_zcdp",
    "randomized_response",
    "report_noisy_max",
    "zcdp_to_approx_dp",
]
