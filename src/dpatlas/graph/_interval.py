"""Intervals of counts released with a data-dependent noise scale and a bought bound (internal).

Shared by :mod:`dpatlas.graph.triangles` (bound on ``a_max``) and :mod:`dpatlas.graph.kstars`
(bound on ``d_max``), whose module docstrings prove the intervals. The release metadata holds
``noisy_<bound>`` (the bound plus discrete Laplace noise of scale ``<bound>_noise_scale``); with
``h`` that noise's ``γ/4`` one-sided quantile, ``noisy + h`` bounds the statistic from above and
``noisy - h`` from below, each failing with probability ``<= γ/4``, and every ladder of the
count then lies between the ladders built from those two values.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from dpatlas.core.noise.discrete_laplace import upper_tail_bound
from dpatlas.core.noise.ladder_exact import ladder_halfwidth
from dpatlas.core.noise.smooth import smooth_bound, smooth_halfwidth
from dpatlas.core.release import Release


class BoundedRelease(Release, ABC):
    """A release whose ladder / smooth interval needs the noisy bound ``noisy_<bound>``."""

    bound: ClassVar[str]

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Interval containing the exact count with probability ``>= level`` (count's module)."""
        meta = self.metadata
        if meta.get("constant"):
            return self.value, self.value
        if f"noisy_{self.bound}" not in meta:
            return super().confidence_interval(level)
        if not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
            raise ValueError(f"level must be in (0, 1), got {level!r}; e.g. 0.95")
        h = self._halfwidth(1.0 - float(level))
        return self.value - h, self.value + h

    @abstractmethod
    def _halfwidth(self, gamma: float) -> int:
        """Noise half-width failing with probability ``<= γ`` (see :func:`bounded_halfwidth`)."""


def bounded_halfwidth(
    meta: Any,
    gamma: float,
    bound: str,
    upper: Callable[[int], np.ndarray],
    lower: Callable[[int], np.ndarray],
) -> int:
    """Half-width failing with probability ``<= γ``; ``upper`` / ``lower`` build the ladders."""
    gs, eps = meta["global_sensitivity"], meta["count_epsilon"]
    h = upper_tail_bound(meta[f"{bound}_noise_scale"], gamma / 4)
    noisy = meta[f"noisy_{bound}"]
    high = upper(noisy + h)
    if meta["method"] == "smooth":
        scale_bound = smooth_bound(high, meta["beta"], global_sensitivity=gs)
        return smooth_halfwidth(scale_bound, eps, meta["delta"], 1.0 - 3 * gamma / 4)
    return ladder_halfwidth(high, lower(noisy - h), eps, 1.0 - gamma / 2, global_sensitivity=gs)
