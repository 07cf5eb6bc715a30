"""The shared privacy core: mechanisms, budgets, releases and randomness.

Domain adapters (:mod:`dpatlas.graph`, :mod:`dpatlas.spatial`) compute exact answers and
sensitivities; only this package draws noise and debits budgets: every release states its
:class:`Cost` and pays it through :func:`open_charge` (check before the data, one debit before
the noise).
"""

from dpatlas.core.accounting.budget import Budget, BudgetAmount
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.composition import (
    advanced_composition,
    group_privacy,
    pure_to_zcdp,
    zcdp_to_approx_dp,
)
from dpatlas.core.accounting.cost import Cost
from dpatlas.core.accounting.records import Spend
from dpatlas.core.noise.clipped import clipped_mean, clipped_sum
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.core.noise.exponential import exponential, report_noisy_max
from dpatlas.core.noise.gaussian import gaussian
from dpatlas.core.noise.laplace import laplace
from dpatlas.core.noise.randomized_response import estimate_frequencies, randomized_response
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source

__all__ = [
    "Budget",
    "BudgetAmount",
    "Charge",
    "Cost",
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
    "open_charge",
    "pure_to_zcdp",
    "randomized_response",
    "report_noisy_max",
    "zcdp_to_approx_dp",
]
