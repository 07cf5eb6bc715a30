"""The core mechanisms as audited releases: coordinate-wise ones batched through a vector
input (``max_changed=1``), the others summarised whole (used by _entry_points.py)."""

from __future__ import annotations

from typing import Any

import numpy as np

from dpatlas import core
from dpatlas.audit import summarize
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_mechanism


def _discrete_laplace(c: int, scale: float, size: int, rng: np.random.Generator) -> Any:
    return core.discrete_laplace(np.full(size, c), sensitivity=1, epsilon=scale, rng=rng).value


def _laplace(x: float, scale: float, size: int, rng: np.random.Generator) -> Any:
    values = np.full(size, x)
    return core.laplace(values, sensitivity=1.0, epsilon=scale, max_changed=1, rng=rng).value


def _gaussian(x: float, scale: float, size: int, rng: np.random.Generator) -> Any:
    values = np.full(size, x)
    return core.gaussian(
        values, sensitivity=1.0, epsilon=scale, delta=1e-3, max_changed=1, rng=rng
    ).value


def _randomized_response(bit: int, scale: float, size: int, rng: np.random.Generator) -> Any:
    return core.randomized_response(np.full(size, bit), epsilon=scale, rng=rng).value


def _ladder(value: int, scale: float, size: int, rng: np.random.Generator) -> Any:
    return ladder_mechanism(
        value, [4], epsilon=scale, global_sensitivity=4, size=size, rng=rng
    ).value


def _smooth(value: int, scale: float, size: int, rng: np.random.Generator) -> Any:
    # S = 1 on both inputs (a constant bound is 0-smooth); the values differ by S
    return smooth_mechanism(value, 1.0, epsilon=scale, delta=1e-3, size=size, rng=rng).value


SCORES = np.zeros(10)
SCORES_MOVED = np.r_[1.0, -np.ones(9)]  # every score moves by the sensitivity 1


def _exponential(scores: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    return summarize(core.exponential(None, scores, sensitivity=1.0, epsilon=scale, rng=rng))


def _noisy_max(scores: np.ndarray, scale: float, rng: np.random.Generator) -> np.ndarray:
    return summarize(core.report_noisy_max(scores, sensitivity=1.0, epsilon=scale, rng=rng))


def _clipped_sum(values: list[float], scale: float, rng: np.random.Generator) -> np.ndarray:
    return summarize(core.clipped_sum(values, lower=0.0, upper=4.0, epsilon=scale, rng=rng))


def _clipped_mean(values: list[float], scale: float, rng: np.random.Generator) -> np.ndarray:
    return summarize(core.clipped_mean(values, lower=0.0, upper=4.0, epsilon=scale, rng=rng))


def _clipped_mean_n(values: list[float], scale: float, rng: np.random.Generator) -> np.ndarray:
    return summarize(core.clipped_mean(values, lower=0.0, upper=4.0, epsilon=scale, n=3, rng=rng))
