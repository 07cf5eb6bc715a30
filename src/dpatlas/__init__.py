"""dpatlas: differentially private analytics of graphs and maps.

The main names of the privacy core are re-exported here; the domain adapters live in
:mod:`dpatlas.graph` (edge-DP graph statistics) and :mod:`dpatlas.spatial` (private heatmaps).
"""

import importlib
from types import ModuleType

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

_SUBPACKAGES = ("audit", "graph", "plot", "spatial")


def __getattr__(name: str) -> ModuleType:
    """Import the domain adapters and the figures on first use (geopandas, rasterio and
    matplotlib load slowly)."""
    if name in _SUBPACKAGES:
        return importlib.import_module(f"dpatlas.{name}")
    raise AttributeError(f"module 'dpatlas' has no attribute {name!r}")


def __dir__() -> list[str]:
    """Every public name, the subpackages not yet imported too (what tab completion lists)."""
    return sorted({*globals(), *__all__})


__all__ = [
    "Budget",
    "BudgetExceededError",
    "LedgerError",
    "PrivacyLeakWarning",
    "Release",
    "__version__",
    "advanced_composition",
    "audit",
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
    "plot",
    "randomized_response",
    "report_noisy_max",
    "spatial",
    "zcdp_to_approx_dp",
]
