"""Fixtures for the spatial tests: a chi-square test of discrete Laplace noise, Agg backend."""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib
import numpy as np
import pytest
from scipy import stats

matplotlib.use("Agg")


def discrete_laplace_pvalue(draws: np.ndarray, scale: float) -> float:
    """Chi-square p-value of integer ``draws`` against ``P(k) ∝ exp(-|k|/scale)``.

    Bins are the integers ``-K..K`` with ``K`` the largest value whose expected count is at
    least 20, plus one bin for each tail beyond; degrees of freedom = bins - 1.
    """
    draws = np.asarray(draws, dtype=np.int64)
    n = draws.size
    p = math.exp(-1.0 / scale)
    norm = (1 - p) / (1 + p)
    reach = math.floor(math.log(20 / (n * norm)) / math.log(p))
    ks = np.arange(-reach, reach + 1)
    probs = np.r_[p ** (reach + 1) / (1 + p), norm * p ** np.abs(ks), p ** (reach + 1) / (1 + p)]
    clipped = np.clip(draws, -reach - 1, reach + 1) + reach + 1
    observed = np.bincount(clipped, minlength=probs.size)
    return float(stats.chisquare(observed, probs / probs.sum() * n).pvalue)


@pytest.fixture(scope="session")
def dl_pvalue() -> Callable[[np.ndarray, float], float]:
    """The chi-square helper (tested in test_stats_helper.py)."""
    return discrete_laplace_pvalue
