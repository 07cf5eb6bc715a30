"""The noise side of the pair certificate of :mod:`dpatlas.core.interval_pairs`: each part's
heights ``H`` and normalised worst shape ``Q`` ((ii) there), and the mixture floor ``Λ`` ((iii)).

Public values only (noise families, levels, the bound's noise scale).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dpatlas.core.interval import NoiseFamily, _bound_grid, _lookup

__all__ = ["LAMBDA_EDGES", "Part", "block_table", "mixture_table", "shape"]

_LOW, _CELLS = 1e-3, 1200
_Y = np.concatenate([[0.0], np.geomspace(_LOW, 1e3, _CELLS)])  # uniform in log: 1.2% steps
_LOG_STEP = math.log(1e3 / _LOW) / (_CELLS - 1)
_FINE = np.flatnonzero((_Y >= 0.2) & (_Y <= 4.0))
_COARSE = np.unique(np.concatenate([_FINE, np.arange(_FINE[-1], _Y.size, 6), [_Y.size - 1]]))
_LAMBDAS = 64
LAMBDA_EDGES = np.linspace(0.0, 1.0, _LAMBDAS + 1)
"""Edges of the blocks of ``λ`` (exact binary fractions)."""
_DENSE = 2048


@dataclass(frozen=True)
class Part:
    """One part's heights ``H`` (on the bound grid) and the lower bound ``Q`` of its shape on ``_Y``."""

    grid: np.ndarray
    heights: np.ndarray
    q: np.ndarray


def _heights(family: NoiseFamily, level: float, b: float) -> tuple[np.ndarray, np.ndarray]:
    grid = _bound_grid(family.top, max(_DENSE, math.ceil(620 * b)))
    return grid, np.maximum.accumulate(family.quantile(grid, level))


def a_blocks(top: int, dense: int, step: float) -> tuple[np.ndarray, np.ndarray]:
    """Blocks ``[lo, hi]`` covering ``0 .. top``: single values up to ``dense``, then ``step``."""
    lo = np.arange(min(top, dense) + 1, dtype=np.float64)
    if top > dense:
        steps = np.arange(1, math.ceil(math.log(top / dense, step)) + 1)
        lo = np.unique(np.concatenate([lo, np.minimum(np.floor(dense * step**steps), top)]))
    return lo, np.append(lo[1:] - 1, top)


def shape(family: NoiseFamily, level: float, b: float) -> np.ndarray:
    """``Q`` on the grid ``_Y``: ``min_a F.cdf(a, ⌊y N(a)⌋)`` over blocks of ``a`` (worst ends).

    For ``a`` in ``[lo, hi]``, ``N(a) >= N(lo)`` and (F1) at ``hi`` give the block's value.

    Examples
    --------
    >>> from dpatlas.core.noise.local.ladder_exact import SteepLadder
    >>> q = shape(SteepLadder(200, 1.0), 0.9, 2.0)
    >>> bool(q[_Y.searchsorted(1.0)] >= 0.9), bool(q[-1] > 0.999), bool((np.diff(q) >= 0).all())
    (True, True, True)
    """
    return part_of(family, level, b).q


@lru_cache(maxsize=32)
def part_of(family: NoiseFamily, level: float, b: float) -> Part:
    """The heights ``H`` of ``family`` at ``level`` and its shape ``Q`` (blocks of ``a``: single
    values to 512, then 0.5%), for a bound noise of scale ``b`` (cached)."""
    grid, heights = _heights(family, level, b)
    lo, hi = a_blocks(family.top, 512, 1.005)
    norm = np.maximum(_lookup(grid, heights, lo), 1.0)
    q = np.ones(_Y.size)
    for start in range(0, lo.size, 256):  # bounded memory
        rows = slice(start, start + 256)
        k = np.floor(_Y[None, :] * norm[rows, None])
        q = np.minimum(q, family.cdf(hi[rows, None], k).min(axis=0))
    return Part(grid, heights, np.maximum.accumulate(np.clip(q, 0.0, 1.0)))


def _at(q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``Q`` at ``v`` as the step function of the grid (0 below 0; rounding only lowers it)."""
    with np.errstate(divide="ignore"):
        k = np.floor(np.log(np.maximum(v, _LOW) / _LOW) / _LOG_STEP - 1e-9) + 1
    idx = np.where(v < _LOW, 0, np.clip(k, 0, _Y.size - 1)).astype(np.int64)
    return np.where(v < 0, 0.0, q[idx])


def mixture_table(q_t: np.ndarray, q_w: np.ndarray, x_t: Any, x_w: Any) -> np.ndarray:
    """A lower bound ``L[i, j]`` on ``Λ(x_t[i], x_w[j])`` (:mod:`dpatlas.core.interval_pairs`).

    The least of :func:`block_table` over the blocks of ``λ``.

    Examples
    --------
    >>> q = 1 - np.exp(-_Y * 3.0)  # V exponential: 0.95 at y = 1
    >>> mixture_table(q, q, [1.0], [1.0]).round(2).tolist()
    [[0.95]]
    """
    xt, xw = np.atleast_1d(np.asarray(x_t, float)), np.atleast_1d(np.asarray(x_w, float))
    out = np.empty((xt.size, xw.size))
    for i, x in enumerate(xt):
        grid = np.broadcast_to(xw[:, None], (xw.size, _LAMBDAS))
        out[i] = block_table(q_t, q_w, np.full(grid.shape, x), grid).min(axis=1)
    return out


def block_table(q_t: np.ndarray, q_w: np.ndarray, x_t: Any, x_w: Any) -> np.ndarray:
    """A lower bound on ``Λ_k(x_t[i, k], x_w[i, k])``: ``Λ`` with ``λ`` in block ``k`` only.

    The blocks cut ``[0, 1]`` at ``LAMBDA_EDGES``. ``V_T`` is pushed up to the grid ``_COARSE``
    (every cell on ``[0.2, 4]``, every sixth beyond; below 0.2 onto its first point:
    stochastically larger); for ``λ`` in a block ``[lo, hi]``, ``λ V_T <= hi V_T`` and
    ``(1 - λ) V_W <= (1 - lo) V_W``; sums are exact over the grid values of ``V_T``.

    Examples
    --------
    >>> q = 1 - np.exp(-_Y * 3.0)
    >>> row = block_table(q, q, np.ones((1, _LAMBDAS)), np.ones((1, _LAMBDAS)))[0]
    >>> bool(row[_LAMBDAS // 2] > row[0] + 0.03), bool(abs(row[0] - row[-1]) < 1e-9)
    (True, True)
    """
    xt, xw = np.broadcast_arrays(np.asarray(x_t, float), np.asarray(x_w, float))
    alpha, beta = LAMBDA_EDGES[1:], 1.0 - LAMBDA_EDGES[:-1]
    support = _Y[_COARSE]
    mass = np.diff(np.concatenate([[0.0], q_t[_COARSE]]))
    out = np.empty(xt.shape)
    for start in range(0, xt.shape[0], 64):  # bounded memory
        t, w = xt[start : start + 64, :, None], xw[start : start + 64, :, None]
        arg = (1 - alpha[:, None] * support[None, :] / t) / beta[:, None]  # (x, λ, support)
        sums = _at(q_w, w * arg) @ mass
        both = _at(q_t, t[..., 0] / alpha) * _at(q_w, w[..., 0] / beta)
        out[start : start + 64] = 0.5 * sums + 0.5 * both
    return out - 1e-12


def multiplier(q_t: np.ndarray, q_w: np.ndarray, level: float) -> float:
    """The least ``τ`` (to 1e-4 relative) with ``Λ(τ, τ) >= level``."""

    def floor(x: float) -> float:
        return float(mixture_table(q_t, q_w, [x], [x])[0, 0])

    low, high = 0.0, 1.0
    while floor(high) < level:
        low, high = high, 2 * high
    while high - low > 1e-4 * high:
        mid = (low + high) / 2
        low, high = (low, mid) if floor(mid) >= level else (mid, high)
    return high
