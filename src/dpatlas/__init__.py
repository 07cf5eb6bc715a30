"""dpatlas: differentially private analytics of graphs and maps.

The main names of the privacy core are re-exported here; the domain adapters live in
:mod:`dpatlas.graph` and :mod:`dpatlas.spatial`.
"""

from dpatlas import spatial
from dpatlas.core import Budget, Release, discrete_laplace, get_source
from dpatlas.errors import BudgetExceededError, LedgerError, PrivacyLeakWarning

__version__ = "0.1.0"

__all__ = [
    "Budget",
    "BudgetExceededError",
    "LedgerError",
    "PrivacyLeakWarning",
    "Release",
    "__version__",
    "discrete_laplace",
    "get_source",
    "spatial",
]
