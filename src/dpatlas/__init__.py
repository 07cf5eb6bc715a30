"""dpatlas: differentially private analytics of graphs and maps.

The main names of the privacy core are re-exported here; the domain adapters live in
:mod:`dpatlas.graph` (edge-DP graph statistics) and :mod:`dpatlas.spatial` (private heatmaps).
"""

from dpatlas import graph, spatial
from dpatlas.core import (
    Budget,
    Release,
    advanced_composition,
    clipped_mean,
    clipped_sum,
    discrete_laplace,
    estimate_frequencies,
    exponential,
    gaussian,
    get_source,
    group_privacy,
    laplace,
    randomized_response,
    report_noisy_max,
    zcdp_to_approx_dp,
)
from dpatlas.errors import BudgetExceededError, LedgerError, PrivacyLeakWarning

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "BudgetExceededError",
    "LedgerError",
    "PrivacyLeakWarning",
    "Release",
    "__version__",
    "advanced_composition",
    "clipped_mean",
    "clipped_sum",
    "discrete_laplace",
    "estimate_frequencies",
    "exponential",
    "gaussian",
    "get_source",
    "graph",
    "group_privacy",
    "laplace",
    "randomized_response",
    "report_noisy_max",
    "spatial",
    "zcdp_to_approx_dp",
]
